// One dual-stack Service with an endpoint in each family, as cluster-file JSON: the CLI tests of
// family choice (generate's sections, diff's sides) read it.

/**
 * The cluster's text. Its config names no family, so IPv4 is its primary one.
 *
 * @param endpoint6 - The IPv6 endpoint's address (another one gives a changed cluster).
 */
export function dualStackCluster(endpoint6 = "fd00:10:244::5"): string {
  return JSON.stringify({
    config: { hostname: "n1", nodeIPs: ["198.18.0.2", "fd00:10::2"] },
    services: [
      {
        metadata: { name: "web", namespace: "default" },
        spec: {
          clusterIP: "10.96.0.10",
          clusterIPs: ["10.96.0.10", "fd00:10:96::a"],
          ipFamilies: ["IPv4", "IPv6"],
          ipFamilyPolicy: "RequireDualStack",
          ports: [{ name: "http", port: 80, protocol: "TCP", targetPort: 8080 }],
        },
      },
    ],
    endpointSlices: (["IPv4", "IPv6"] as const).map((family) => ({
      metadata: {
        name: `web-${family.toLowerCase()}`,
        namespace: "default",
        labels: { "kubernetes.io/service-name": "web" },
      },
      addressType: family,
      endpoints: [{ addresses: [family === "IPv4" ? "10.244.0.5" : endpoint6] }],
      ports: [{ name: "http", port: 8080, protocol: "TCP" }],
    })),
  });
}
