/**
 * What a tool needs from the person before it can go on — a first-use host-key decision, a
 * login password, a key passphrase, a sudo password — and how their answers come back. A
 * tool call that needs one ends its round with an elicitation request (MCP form mode): the
 * SDK sends `elicitation/create` on a 2025 connection, or returns `input_required` on
 * 2026-07-28, and the call is run again with the answer. Whatever the earlier rounds settled
 * (a trusted key, a pooled connection, a remembered password) is kept in this process, so a
 * later round picks up where the previous one stopped.
 */

/** One question: the answer is one field, a secret string or a yes/no. */
export interface Question {
  /** Which question (the key of the input request and of its response). */
  readonly key: 'host_key' | 'login_password' | 'key_passphrase' | 'sudo_password';
  readonly message: string;
  readonly field:
    | { readonly kind: 'secret'; readonly name: 'password' | 'passphrase'; readonly title: string }
    | { readonly kind: 'confirm'; readonly name: 'trust'; readonly title: string };
}

/** Thrown by the service when a question must be asked; the tool layer turns it into a round. */
export class InputNeeded {
  constructor(readonly question: Question) {}
}

/** The person's answer to one question in this round. */
export type Answer =
  | { readonly kind: 'missing' }
  | { readonly kind: 'declined' }
  | { readonly kind: 'accepted'; readonly content: Readonly<Record<string, unknown>> };

/** Reads this round's answer to a question. */
export type Answers = (key: Question['key']) => Answer;

/** No answers at all (a first round, or a caller that cannot ask). */
export const noAnswers: Answers = () => ({ kind: 'missing' });

/** The secret string in an accepted answer, if it holds a non-empty one under `name`. */
export function secretFrom(answer: Answer, name: string): string | undefined {
  if (answer.kind !== 'accepted') return undefined;
  const value = answer.content[name];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}
