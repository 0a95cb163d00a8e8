// Whether an address is this machine's own: a target there shares the client's CPUs, and a run
// against it says nothing of a cloud VM. Node's BlockList reads every spelling of one address: an
// IPv4 address mapped into IPv6 as URL writes it (`[::ffff:7f00:1]`), `0:0:0:0:0:0:0:1`, and so on.
import { BlockList, isIP } from 'node:net';

const OWN = new BlockList();
// Loopback, and "any" (0.0.0.0, ::), which a client connects to as this machine.
OWN.addSubnet('127.0.0.0', 8, 'ipv4');
OWN.addAddress('0.0.0.0', 'ipv4');
OWN.addAddress('::1', 'ipv6');
OWN.addAddress('::', 'ipv6');

/** An IP address (brackets allowed) that reaches this machine; a name or anything else is not one. */
export function onThisMachine(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, '');
  const family = isIP(a);
  return family !== 0 && OWN.check(a, family === 6 ? 'ipv6' : 'ipv4');
}
