import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/** Names this process in step leases and cron fires, so peers can tell whose claim a row is. */
export function newReplicaId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}
