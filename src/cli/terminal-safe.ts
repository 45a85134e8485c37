/**
 * Text for the operator's terminal. A run's words come from people and models (a task, a goal, an answer, an
 * escalation), and an escape sequence among them would reach the terminal as a command: clear the screen, move the
 * cursor over a line, set the window title, hide text. Every control character but the line break is shown as its
 * `\xNN` code instead, so what was stored stays readable and nothing in it acts on the terminal. The controls of
 * bidirectional text (an override, an embedding, an isolate, a direction mark) are shown as `\uNNNN`: they act on the
 * terminal too, reordering what follows them, so `merge into main` could be stored and display as another branch.
 */
// C0 controls but \n, DEL, and the C1 controls (0x9b alone starts a sequence on some terminals).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g;
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function terminalSafe(text: string): string {
  return text
    .replace(CONTROL, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`)
    .replace(BIDI, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
