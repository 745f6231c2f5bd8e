/** Throws at the first field of a cluster file's Services and EndpointSlices the API server would refuse. */
export declare function checkClusterObjects(input: unknown): void;
