// Types for js-sha256's pure-JS ESM build, which its package exports without a declaration.
declare module "js-sha256/build/sha256.min.mjs" {
  interface Hash {
    (message: string | ArrayBuffer | Uint8Array | number[]): string;
    array(message: string | ArrayBuffer | Uint8Array | number[]): number[];
    arrayBuffer(message: string | ArrayBuffer | Uint8Array | number[]): ArrayBuffer;
  }
  export const sha256: Hash;
  export const sha224: Hash;
}
