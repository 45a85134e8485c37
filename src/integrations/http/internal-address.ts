import { BlockList, isIP } from 'node:net';

/**
 * Addresses inside the operator's own network, which a stranger's URL must not reach through us:
 * loopback, private, link-local (cloud metadata lives at 169.254.169.254), carrier-grade NAT,
 * unique-local and unspecified addresses.
 */
const INTERNAL = new BlockList();
INTERNAL.addSubnet('0.0.0.0', 8, 'ipv4');
INTERNAL.addSubnet('10.0.0.0', 8, 'ipv4');
INTERNAL.addSubnet('100.64.0.0', 10, 'ipv4');
INTERNAL.addSubnet('127.0.0.0', 8, 'ipv4');
INTERNAL.addSubnet('169.254.0.0', 16, 'ipv4');
INTERNAL.addSubnet('172.16.0.0', 12, 'ipv4');
INTERNAL.addSubnet('192.168.0.0', 16, 'ipv4');
INTERNAL.addAddress('::', 'ipv6');
INTERNAL.addAddress('::1', 'ipv6');
INTERNAL.addSubnet('fc00::', 7, 'ipv6');
INTERNAL.addSubnet('fe80::', 10, 'ipv6');

export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return INTERNAL.check(mapped[1]!, 'ipv4');
  return INTERNAL.check(address, family === 4 ? 'ipv4' : 'ipv6');
}
