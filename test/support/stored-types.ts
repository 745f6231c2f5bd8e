// The input types as the tests build and read them: objects as the API server stores them, with
// `metadata` and `spec` always present. The library's input types leave both optional (as
// `kubernetes-types` and `@kubernetes/client-node` do), so that users' objects go in without a
// cast; a test that builds its own objects reads `s.metadata.name` without a `?.` each time.
import type * as Input from "../../src/kube/types.js";

export type * from "../../src/kube/types.js";

/** A Service with its `metadata` and `spec`. */
export interface Service extends Input.Service {
  readonly metadata: Input.ObjectMeta;
  readonly spec: Input.ServiceSpec;
}

/** An EndpointSlice with its `metadata`. */
export interface EndpointSlice extends Input.EndpointSlice {
  readonly metadata: Input.ObjectMeta;
}

/** A cluster input whose objects have their `metadata` and `spec`. */
export interface ClusterInput extends Input.ClusterInput {
  readonly services?: readonly Service[];
  readonly endpointSlices?: readonly EndpointSlice[];
}
