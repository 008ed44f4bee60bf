// HTML built only through the `html` tag: every interpolated value is escaped unless it is itself
// built by `html`, so target-controlled text (serverInfo, messages, reasons) cannot become markup.

/** A piece of markup built by `html` (trusted: its literal parts come from this code). */
export class SafeHtml {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text;
  }
}

/** Escapes text for element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (char) => `&#${char.charCodeAt(0)};`);
}

type Part = SafeHtml | string | number | boolean | null | undefined | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof SafeHtml) return part.text;
  if (Array.isArray(part)) return (part as readonly Part[]).map(render).join('');
  return escapeHtml(String(part));
}

/** Template tag: literal parts kept, interpolations escaped (arrays joined, null/undefined/false empty). */
export function html(strings: TemplateStringsArray, ...values: Part[]): SafeHtml {
  let text = strings[0] ?? '';
  values.forEach((value, index) => {
    text += render(value) + (strings[index + 1] ?? '');
  });
  return new SafeHtml(text);
}
