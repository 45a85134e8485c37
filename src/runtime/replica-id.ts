import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { isProcessAlive } from '../store/engine/data-dir-lock.ts';

/** Names this process in step leases and cron fires, so peers can tell whose claim a row is. */
export function newReplicaId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/**
 * True when `owner` names a process of this host that is gone: its pid is not running (or is a
 * zombie), or it is our own pid under another id (a previous life of this container). A replica on
 * another host cannot be checked this way; its leases simply run out.
 */
export function isDeadLocalReplica(owner: string, self: string): boolean {
  const prefix = `${hostname()}-`;
  if (owner === self || !owner.startsWith(prefix)) return false;
  const match = /^(\d+)-[0-9a-f]+$/.exec(owner.slice(prefix.length));
  if (!match) return false;
  const pid = Number(match[1]);
  return pid === process.pid || !isProcessAlive(pid);
}
