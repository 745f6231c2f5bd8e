// The bundler loads .yaml files as text (esbuild `loader: { ".yaml": "text" }`).
declare module "*.yaml" {
  const text: string;
  export default text;
}
