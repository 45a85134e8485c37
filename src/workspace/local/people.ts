import { z } from 'zod';
import { LOCAL_USER } from './local-identity.ts';

/** Someone the person at the keyboard can act as; `title` is how the switch names them. */
export interface WorkspacePerson {
  id: string;
  name: string;
  title: string;
}

/**
 * Who the page acts as. Normally one person; the demo has several (requester, approver, bystander) so
 * four-eyes and "only … may answer" can be tried alone. Switching is a workspace action behind the same
 * key as every other: it changes who the next message or click comes from, nothing the bot stored.
 */
export class People {
  private currentId: string;

  constructor(readonly list: readonly WorkspacePerson[] = [{ ...LOCAL_USER, title: 'You (local workspace)' }]) {
    if (list.length === 0) throw new Error('the local workspace needs at least one person');
    this.currentId = list[0]!.id;
  }

  current(): WorkspacePerson {
    return this.list.find((person) => person.id === this.currentId)!;
  }

  switchTo(id: string): boolean {
    if (!this.list.some((person) => person.id === id)) return false;
    this.currentId = id;
    return true;
  }

  /** Display names by id, for mentions in messages. */
  names(): Record<string, string> {
    return Object.fromEntries(this.list.map((person) => [person.id, person.name]));
  }
}

export const SwitchPerson = z.object({ id: z.string().regex(/^U[A-Z0-9]+$/) });
