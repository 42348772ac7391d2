import { html } from 'htm/preact';

// Tenant-controlled strings (ids, names, attributes, URLs, receiver bodies) are shown so that two
// different values never look the same and one value cannot rearrange the page around it
// (issue 34): each in a <bdi>, and every character that is not seen as itself written out as a
// marked ⟨U+XXXX⟩. The rule is the simplest honest one: every such character, wherever it is, so
// a zero width joiner inside an emoji sequence is written out too (👩⟨U+200D⟩💻). docs/console.md.

/**
 * Not seen as itself: controls (ESC starts terminal colour sequences), format characters (bidi
 * controls, zero-width characters, the BOM, the soft hyphen, tags), line and paragraph separators,
 * lone surrogates, and Unicode's default-ignorable code points (fillers, variation selectors).
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}]/u;

/** Names for the title of the characters an attacker reaches for first; others show their code. */
const NAMES = {
  0x1b: 'ESCAPE (starts terminal colour and cursor sequences)',
  0x7f: 'DELETE',
  0xad: 'SOFT HYPHEN',
  0x61c: 'ARABIC LETTER MARK',
  0x180e: 'MONGOLIAN VOWEL SEPARATOR',
  0x200b: 'ZERO WIDTH SPACE',
  0x200c: 'ZERO WIDTH NON-JOINER',
  0x200d: 'ZERO WIDTH JOINER',
  0x200e: 'LEFT-TO-RIGHT MARK',
  0x200f: 'RIGHT-TO-LEFT MARK',
  0x2028: 'LINE SEPARATOR',
  0x2029: 'PARAGRAPH SEPARATOR',
  0x202a: 'LEFT-TO-RIGHT EMBEDDING',
  0x202b: 'RIGHT-TO-LEFT EMBEDDING',
  0x202c: 'POP DIRECTIONAL FORMATTING',
  0x202d: 'LEFT-TO-RIGHT OVERRIDE',
  0x202e: 'RIGHT-TO-LEFT OVERRIDE',
  0x2060: 'WORD JOINER',
  0x2066: 'LEFT-TO-RIGHT ISOLATE',
  0x2067: 'RIGHT-TO-LEFT ISOLATE',
  0x2068: 'FIRST STRONG ISOLATE',
  0x2069: 'POP DIRECTIONAL ISOLATE',
  0xfeff: 'ZERO WIDTH NO-BREAK SPACE (byte order mark)',
};

const code = (cp) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
const marker = (cp) => `⟨${code(cp)}⟩`;

/**
 * The string as runs of plain text (`{ text }`) and hidden characters (`{ cp }`). `multiline`
 * keeps a body's line breaks (LF, CRLF) and tabs as they are: there they are the text's layout.
 */
function parts(s, multiline) {
  const chars = [...s];
  const out = [];
  let plain = '';
  chars.forEach((c, i) => {
    const layout = multiline && (c === '\n' || c === '\t' || (c === '\r' && chars[i + 1] === '\n'));
    if (layout || !HIDDEN.test(c)) {
      plain += c;
      return;
    }
    if (plain) out.push({ text: plain });
    plain = '';
    out.push({ cp: c.codePointAt(0) });
  });
  if (plain) out.push({ text: plain });
  return out;
}

/** For places that take text only (an <option>): the markers without their style. */
export const visibleText = (value, multiline = false) =>
  parts(String(value ?? ''), multiline)
    .map((p) => p.text ?? marker(p.cp))
    .join('');

/** `\uXXXX` for each UTF-16 unit: JSON writes a character beyond U+FFFF (a tag) as a pair. */
const jsonEscapes = (c) =>
  c
    .split('')
    .map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .join('');

/**
 * JSON for a text box, with every hidden character as escapes: the same value once parsed.
 * JSON.stringify escapes controls inside strings, so a raw line break is its layout and stays.
 */
export const visibleJson = (value) =>
  JSON.stringify(value, null, 2).replace(new RegExp(HIDDEN.source, 'gu'), (c) => (c === '\n' ? c : jsonEscapes(c)));

/** A tenant's string, direction isolated, each hidden character written out and titled. */
export function Visible({ text, multiline = false }) {
  return html`<bdi class="tenant"
    >${parts(String(text ?? ''), multiline).map(
      (p) =>
        p.text ??
        html`<span
          class="hidden-char"
          title=${`${[code(p.cp), NAMES[p.cp]].filter(Boolean).join(' ')}: an invisible or control character`}
          >${marker(p.cp)}</span
        >`,
    )}</bdi
  >`;
}

/**
 * A user id. Ids are compared as stored, so é written as e + U+0301 (NFD) and as U+00E9 (NFC) are
 * two users that look the same: an id not in NFC carries a visible mark with its code points.
 */
export function UserId({ id }) {
  const s = String(id ?? '');
  if (s === s.normalize('NFC')) return html`<${Visible} text=${s} />`;
  const points = [...s].map((c) => code(c.codePointAt(0))).join(' ');
  // The space is text, so copying or hearing the id does not run it into the mark.
  return html`<${Visible} text=${s} />${' '}<span
      class="nfc-mark"
      title=${`Not in Unicode NFC (${points}): the same letters in NFC are another user`}
      >not NFC</span
    >`;
}
