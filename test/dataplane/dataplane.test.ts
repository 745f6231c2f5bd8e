// The IPv4 data-plane test: real TCP and UDP traffic through our iptables rules, between network
// namespaces made by the test, every address in 198.18.0.0/15 (see suite.ts).
import { dataplaneSuite } from "./suite.js";

dataplaneSuite("IPv4");
