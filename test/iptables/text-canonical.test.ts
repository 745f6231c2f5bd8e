// Unit tests of the canonicalizer's tricky cases (spec §2, §4.1, §6, §7, §8, §14).
import { describe, expect, it } from "vitest";
import { detectTextForm, parseRules } from "../../src/index.js";
import {
  canonicalizeRule,
  expandAddressLists,
  formatCanonicalRule,
  probabilityToStored,
  probabilityToText,
  saveString,
  tryCanonicalizeRule,
} from "../../src/iptables/canonical/canonicalize.js";
import type { IPFamily } from "../../src/ir/types.js";

const line = (spec: string, family: IPFamily = "IPv4"): string =>
  formatCanonicalRule("X", canonicalizeRule(spec.split(" "), family));

describe("statistic probability (spec §6)", () => {
  // [kube-proxy input, k, saved] from the §6.3 table, plus the edge cases of §6.2.
  const table: [string, number, string][] = [
    ["0.5000000000", 1073741824, "0.50000000000"],
    ["0.3333333333", 715827883, "0.33333333349"],
    ["0.33333", 715820724, "0.33332999982"],
    ["0.1666666667", 357913941, "0.16666666651"],
    ["0.0227272727", 48806446, "0.02272727247"],
    ["0.0002441406", 524288, "0.00024414062"],
    ["0.0004882812", 1048576, "0.00048828125"],
    ["0.0000100000", 21475, "0.00001000008"],
    ["1", 2147483648, "1.00000000000"],
    ["0.9999999999999999", 2147483648, "1.00000000000"],
    // The spec's prose pairs 0.99999999976716936 with k = 2^31−1, but the real iptables (fixture
    // statistic-edge) saves that string as 1.00000000000; 0.9999999995343387 is the 2^31−1 one.
    ["0.99999999976716936", 2147483648, "1.00000000000"],
    ["0.9999999995343387", 2147483647, "0.99999999953"],
    ["2.3283064365386963e-10", 1, "0.00000000047"],
    ["1.1641532182693481e-09", 3, "0.00000000140"],
    ["0x1p-1", 1073741824, "0.50000000000"],
    ["-0", 0, "0.00000000000"],
    [".5", 1073741824, "0.50000000000"],
  ];
  for (const [input, k, saved] of table) {
    it(`${input} → k=${k} → ${saved}`, () => {
      expect(probabilityToStored(input)).toBe(k);
      expect(probabilityToText(k)).toBe(saved);
      const r = canonicalizeRule(["-m", "statistic", "--mode", "random", "--probability", input], "IPv4");
      const m = r.matches[0];
      expect(m?.kind === "statistic" && m.probability).toBe(k);
    });
  }
  it("rejects out-of-range and garbage", () => {
    for (const bad of ["1.5", "-0.1", "0.5x", "", " 0.5", "nan", "inf"])
      expect(probabilityToStored(bad)).toBe(-1);
  });
});

describe("IPv6 printing (spec §2.1, §14.3)", () => {
  const cases: [string, string][] = [
    ["2001:DB8::1", "2001:db8::1/128"],
    ["2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1/128"],
    ["1:0:0:4:0:0:0:8", "1:0:0:4::8/128"],
    ["1:0:2:0:0:3:0:0", "1:0:2::3:0:0/128"],
    ["1:2:3:4:5:6:7:0", "1:2:3:4:5:6:7:0/128"],
    ["::ffff:1.2.3.4", "::ffff:1.2.3.4/128"],
    ["::ffff:0:0/96", "::ffff:0.0.0.0/96"],
    ["::1.2.3.4", "::1.2.3.4/128"],
    ["64:ff9b::1.2.3.4", "64:ff9b::102:304/128"],
    ["::ffff:0:1.2.3.4", "::ffff:0:102:304/128"],
    ["::0.0.1.0", "::100/128"],
    ["fd00::/7", "fc00::/7"],
    ["::1", "::1/128"],
    ["::", "::/128"],
    ["2001:db8::abcd:ef01:2345:6789/120", "2001:db8::abcd:ef01:2345:6700/120"],
    ["fe80::1/ffff:0:ffff::", "fe80::/ffff:0:ffff::"],
  ];
  for (const [input, printed] of cases) {
    it(`${input} → ${printed}`, () => {
      expect(line(`-d ${input}`, "IPv6")).toBe(`-A X -d ${printed}`);
    });
  }
  it("rejects bad addresses and masks", () => {
    expect(tryCanonicalizeRule(["-s", "fd00::g"], "IPv6").ok).toBe(false);
    expect(tryCanonicalizeRule(["-s", "::1/129"], "IPv6").ok).toBe(false);
    expect(tryCanonicalizeRule(["-s", "1::2::3"], "IPv6").ok).toBe(false);
  });
});

describe("IPv4 addresses (spec §2.1)", () => {
  it("clears host bits, converts masks, reads iptables' odd spellings", () => {
    expect(line("-s 10.0.0.5/24")).toBe("-A X -s 10.0.0.0/24");
    expect(line("-s 10.0.0.1/255.255.255.0")).toBe("-A X -s 10.0.0.0/24");
    expect(line("-s 10.0.0.1/255.0.255.0")).toBe("-A X -s 10.0.0.0/255.0.255.0");
    expect(line("-s 010.0.0.1")).toBe("-A X -s 8.0.0.1/32");
    expect(line("-s 10.1")).toBe("-A X -s 10.1.0.0/32");
    expect(line("-s 10.0.0.1/0")).toBe("-A X");
    expect(line("-s 0.0.0.0")).toBe("-A X -s 0.0.0.0/32");
  });
  it("keeps ! -s 0.0.0.0/0 on legacy only", () => {
    expect(
      formatCanonicalRule("X", canonicalizeRule(["!", "-s", "0.0.0.0/0"], "IPv4", { backend: "legacy" })),
    ).toBe("-A X ! -s 0.0.0.0/0");
    expect(tryCanonicalizeRule(["!", "-s", "0.0.0.0/0"], "IPv4", { backend: "nft" }).ok).toBe(false);
  });
  it("expands comma lists in iptables' order", () => {
    expect(
      expandAddressLists(["-s", "1.1.1.1,1.1.1.2", "-d", "2.2.2.1,2.2.2.2", "-j", "ACCEPT"], "IPv4")?.map(
        (a) => `${a[1]}>${a[3]}`,
      ),
    ).toEqual(["1.1.1.1>2.2.2.1", "1.1.1.1>2.2.2.2", "1.1.1.2>2.2.2.1", "1.1.1.2>2.2.2.2"]);
    const r = tryCanonicalizeRule(["-s", "1.1.1.1,1.1.1.2"], "IPv4");
    expect(r.ok === false && r.addressList).toBe(true);
  });
});

describe("quoting (spec §4.1)", () => {
  const cases: [string, string][] = [
    ["abc", "abc"],
    ["a_b-c09", "a_b-c09"],
    ["-", "-"],
    ["ns1/svc1:p80", '"ns1/svc1:p80"'],
    ["", '""'],
    ['a"b', '"a\\"b"'],
    ["a\\b", '"a\\\\b"'],
    ["it's", '"it\\\'s"'],
    ["héllo", '"héllo"'],
    ["tab\tx", '"tab\tx"'],
  ];
  for (const [stored, printed] of cases)
    it(`${JSON.stringify(stored)} → ${printed}`, () => expect(saveString(stored)).toBe(printed));
  it("truncates comments to 255 bytes before escaping", () => {
    const r = canonicalizeRule(["-m", "comment", "--comment", `${"x".repeat(250)}${'"'.repeat(6)}`], "IPv4");
    expect(formatCanonicalRule("X", r)).toBe(
      `-A X -m comment --comment "${"x".repeat(250)}${'\\"'.repeat(5)}"`,
    );
  });
  it("prints nfacct with two spaces and recent names unquoted", () => {
    expect(line("-m nfacct --nfacct-name pkts")).toBe("-A X -m nfacct --nfacct-name  pkts");
    const r = canonicalizeRule(["-m", "recent", "--name", "a b", "--set"], "IPv4");
    expect(formatCanonicalRule("X", r)).toBe(
      "-A X -m recent --set --name a b --mask 255.255.255.255 --rsource",
    );
  });
});

describe("mark match and MARK target (spec §7.1, §8.2)", () => {
  const cases: [string, string][] = [
    ["-m mark --mark 16384/0xFFFF", "-m mark --mark 0x4000/0xffff"],
    ["-m mark --mark 0xffffffff/0xffffffff", "-m mark --mark 0xffffffff"],
    ["-m mark --mark 010", "-m mark --mark 0x8"],
    ["-m mark ! --mark 0x4000/0x4000", "-m mark ! --mark 0x4000/0x4000"],
    ["-j MARK --or-mark 0x4000", "-j MARK --set-xmark 0x4000/0x4000"],
    ["-j MARK --xor-mark 0x4000", "-j MARK --set-xmark 0x4000/0x0"],
    ["-j MARK --and-mark 0xffff3fff", "-j MARK --set-xmark 0x0/0xc000"],
    ["-j MARK --set-mark 0x1/0x2", "-j MARK --set-xmark 0x1/0x3"],
    ["-j MARK --set-mark 0x4000", "-j MARK --set-xmark 0x4000/0xffffffff"],
    ["-j MARK --or-mark 0", "-j MARK --set-xmark 0x0/0x0"],
  ];
  for (const [input, printed] of cases) it(input, () => expect(line(input)).toBe(`-A X ${printed}`));
  it("rejects bad values and a bare MARK", () => {
    expect(tryCanonicalizeRule(["-m", "mark", "--mark", "foo"], "IPv4").ok).toBe(false);
    expect(tryCanonicalizeRule(["-j", "MARK"], "IPv4").ok).toBe(false);
  });
  it("exposes value and mask to the tracer", () => {
    const r = canonicalizeRule(["-j", "MARK", "--or-mark", "0x4000"], "IPv4");
    expect(r.target).toMatchObject({ kind: "mark", value: 0x4000, mask: 0x4000 });
  });
});

describe("recent defaults (spec §7.4)", () => {
  it("fills in name, mask and side", () => {
    expect(line("-m recent --set")).toBe(
      "-A X -m recent --set --name DEFAULT --mask 255.255.255.255 --rsource",
    );
    expect(line("-m recent --name KUBE-SEP-X --rcheck --seconds 10800 --reap")).toBe(
      "-A X -m recent --rcheck --seconds 10800 --reap --name KUBE-SEP-X --mask 255.255.255.255 --rsource",
    );
    expect(line("-m recent --set", "IPv6")).toBe(
      "-A X -m recent --set --name DEFAULT --mask ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff --rsource",
    );
    const r = canonicalizeRule("-m recent --name S --rcheck --seconds 60 --reap".split(" "), "IPv4");
    expect(r.matches[0]).toMatchObject({
      kind: "recent",
      listName: "S",
      command: "rcheck",
      seconds: 60,
      reap: true,
    });
  });
  it("rejects an empty name", () => {
    expect(tryCanonicalizeRule(["-m", "recent", "--name", "", "--set"], "IPv4").ok).toBe(false);
  });
});

describe("REJECT defaults (spec §8.5)", () => {
  it("fills in the family's default and canonical names", () => {
    expect(line("-j REJECT")).toBe("-A X -j REJECT --reject-with icmp-port-unreachable");
    expect(line("-j REJECT", "IPv6")).toBe("-A X -j REJECT --reject-with icmp6-port-unreachable");
    expect(line("-j REJECT --reject-with ICMP-PORT")).toBe(
      "-A X -j REJECT --reject-with icmp-port-unreachable",
    );
    expect(line("-j REJECT --reject-with no-route", "IPv6")).toBe(
      "-A X -j REJECT --reject-with icmp6-no-route",
    );
  });
  it("rejects unknown types, IPv4 types in IPv6, tcp-reset without -p tcp", () => {
    expect(tryCanonicalizeRule(["-j", "REJECT", "--reject-with", "bogus"], "IPv4").ok).toBe(false);
    expect(tryCanonicalizeRule(["-j", "REJECT", "--reject-with", "icmp-host-prohibited"], "IPv6").ok).toBe(
      false,
    );
    expect(tryCanonicalizeRule(["-j", "REJECT", "--reject-with", "tcp-reset"], "IPv4").ok).toBe(false);
  });
});

describe("addrtype and conntrack ordering (spec §7.2, §7.3)", () => {
  const cases: [string, string][] = [
    ["-m addrtype --dst-type MULTICAST,BROADCAST,LOCAL", "-m addrtype --dst-type LOCAL,BROADCAST,MULTICAST"],
    ["-m addrtype --dst-type LOCAL --src-type local", "-m addrtype --src-type LOCAL --dst-type LOCAL"],
    ["-m conntrack --ctstate ESTABLISHED,RELATED", "-m conntrack --ctstate RELATED,ESTABLISHED"],
    ["-m conntrack ! --ctstate dnat,new", "-m conntrack ! --ctstate NEW,DNAT"],
    ["-m conntrack --ctproto tcp", "-m conntrack --ctproto 6"],
    ["-m state --state NEW,ESTABLISHED", "-m state --state NEW,ESTABLISHED"],
  ];
  for (const [input, printed] of cases) it(input, () => expect(line(input)).toBe(`-A X ${printed}`));
  it("rejects unknown names and IPv6 BROADCAST", () => {
    expect(tryCanonicalizeRule("-m addrtype --dst-type BOGUS".split(" "), "IPv4").ok).toBe(false);
    expect(tryCanonicalizeRule("-m addrtype --dst-type BROADCAST".split(" "), "IPv6").ok).toBe(false);
    expect(tryCanonicalizeRule("-m conntrack --ctstate BOGUS".split(" "), "IPv4").ok).toBe(false);
  });
});

describe("order, implicit matches and targets (spec §2, §3, §8)", () => {
  it("prints kube-proxy's rules in canonical order", () => {
    expect(
      line(
        "-m comment --comment ns/svc:p -m tcp -p tcp -d 172.30.0.44 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ",
      ),
    ).toBe(
      '-A X ! -s 10.0.0.0/8 -d 172.30.0.44/32 -p tcp -m comment --comment "ns/svc:p" -m tcp --dport 80 -j KUBE-MARK-MASQ',
    );
    expect(line("-m comment --comment x -p tcp --dport 80")).toBe(
      "-A X -p tcp -m comment --comment x -m tcp --dport 80",
    );
    expect(line("-p icmp --icmp-type echo-request")).toBe("-A X -p icmp -m icmp --icmp-type 8");
    expect(line("-p ipv6-icmp --icmpv6-type echo-request", "IPv6")).toBe(
      "-A X -p ipv6-icmp -m icmp6 --icmpv6-type 128",
    );
    expect(line("-p tcp --syn")).toBe("-A X -p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN");
    expect(line("-p 47")).toBe("-A X -p gre");
    expect(line("-p tcp -j DNAT --to 10.0.0.1:80")).toBe("-A X -p tcp -j DNAT --to-destination 10.0.0.1:80");
    expect(line("-p tcp -j DNAT --to-destination [FD00:0:0::0:1]:8080", "IPv6")).toBe(
      "-A X -p tcp -j DNAT --to-destination [fd00::1]:8080",
    );
    expect(line("-p tcp -j MASQUERADE --random-fully --to-ports 1000-2000 --random")).toBe(
      "-A X -p tcp -j MASQUERADE --to-ports 1000-2000 --random --random-fully",
    );
  });
  it("merges repeated tcp matches on nft only", () => {
    const args = "-p tcp --dport 80 -m tcp --sport 90".split(" ");
    expect(formatCanonicalRule("X", canonicalizeRule(args, "IPv4", { backend: "nft" }))).toBe(
      "-A X -p tcp -m tcp --sport 90 --dport 80",
    );
    expect(formatCanonicalRule("X", canonicalizeRule(args, "IPv4", { backend: "legacy" }))).toBe(
      "-A X -p tcp -m tcp --dport 80 -m tcp --sport 90",
    );
  });
  it("passes unknown-to-us extensions through faithfully", () => {
    expect(line("-o virbr0 -p udp -m udp --dport 68 -j CHECKSUM --checksum-fill")).toBe(
      "-A X -o virbr0 -p udp -m udp --dport 68 -j CHECKSUM --checksum-fill",
    );
    expect(line("-m set --match-set KUBE-X dst,dst -j ACCEPT")).toBe(
      "-A X -m set --match-set KUBE-X dst,dst -j ACCEPT",
    );
  });
  it("reports problems with the offending argument", () => {
    const cases: [string, number][] = [
      ["--dport 80 -p tcp", 0],
      ["-p tcp --dport 65536", 3],
      ["-p tcp --dport 2000:1000", 3],
      ["-m comment --comment", 2],
      ["-m comment", 0],
      ["-m nosuchmatch", 1],
      ["-m comment --comment x y", 4],
      ["-p tcp -p udp", 2],
      ["-m multiport --dports 80,443 -p tcp", 2],
      ["-i abcdefghijklmnop", 1],
    ];
    for (const [spec, argIndex] of cases) {
      const r = tryCanonicalizeRule(spec.split(" "), "IPv4");
      expect(r.ok, spec).toBe(false);
      if (!r.ok) expect(r.argIndex, spec).toBe(argIndex);
    }
  });
});

describe("parser", () => {
  it("tokenizes like iptables-restore and locates problems", () => {
    const { ruleSet, problems } = parseRules(
      '*filter\n:X - [0:0]\n-A X -m comment --comment "a \\"b\\" c" -j ACCEPT\n-A X -p tcp --dport 99999 -j ACCEPT\nCOMMIT\n',
    );
    const first = ruleSet.tables[0]?.entries[0];
    expect(first?.kind === "rule" && first.args[3]).toBe('a "b" c');
    expect(problems).toEqual([
      {
        code: "PARSE",
        path: "",
        severity: "error",
        line: 4,
        column: 21,
        message: "invalid port/service `99999' specified",
      },
    ]);
  });
  it("detects the family from addresses", () => {
    expect(parseRules("*filter\n-A INPUT -s fd00::1 -j ACCEPT\nCOMMIT\n").ruleSet.family).toBe("IPv6");
    expect(parseRules("*filter\n-A INPUT -j ACCEPT\nCOMMIT\n").ruleSet.family).toBe("IPv4");
  });
  it("reports a missing COMMIT, CRLF and stray text", () => {
    expect(parseRules("*filter\n-A INPUT -j ACCEPT\n").problems.length).toBe(1);
    expect(parseRules("*filter\r\nCOMMIT\r\n").problems.length).toBeGreaterThan(0);
    expect(parseRules("*filter\n-A INPUT -j ACCEPT # note\nCOMMIT\n").problems[0]?.column).toBe(20);
  });
});

describe("detectTextForm", () => {
  it("tells the forms apart", () => {
    expect(detectTextForm("*nat\n:KUBE-X - [0:0]\n-A KUBE-X -d 10.0.0.1 -j RETURN\nCOMMIT\n")).toBe(
      "restore",
    );
    expect(
      detectTextForm(
        "# Generated\n*nat\n:PREROUTING ACCEPT [0:0]\n-A PREROUTING -d 10.0.0.1/32 -j RETURN\nCOMMIT\n",
      ),
    ).toBe("save");
    expect(detectTextForm('{"services": []}')).toBe("cluster");
    expect(detectTextForm("services:\n  - metadata: {}\n")).toBe("cluster");
  });
});
