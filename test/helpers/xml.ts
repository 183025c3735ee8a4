// A strict little XML reader for tests: enough of XML 1.0 to prove a generated file is
// well-formed (one root, balanced tags, quoted and unique attributes, only the five
// predefined entities and character references, no stray `<` or `&`, legal characters)
// and to look at its structure. Throws on anything malformed.

export type XmlElement = { name: string; attrs: Record<string, string>; children: XmlElement[]; text: string };

const NAME = /^[A-Za-z_][A-Za-z0-9_.:-]*/;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const ILLEGAL = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

export function parseXml(source: string): XmlElement {
  if (ILLEGAL.test(source)) throw new Error('illegal character in document');
  let i = 0;
  const fail = (why: string): never => {
    throw new Error(`${why} at offset ${i}: ${JSON.stringify(source.slice(i, i + 40))}`);
  };
  const decode = (raw: string): string => {
    if (raw.includes('<')) fail('raw < in text or attribute');
    return raw.replace(/&([^;]*);|&/g, (whole, ref: string | undefined) => {
      if (ref === undefined) return fail('bare &');
      if (ref in ENTITIES) return ENTITIES[ref]!;
      const m = /^#(x[0-9a-fA-F]+|[0-9]+)$/.exec(ref);
      if (!m) return fail(`unknown entity ${whole}`);
      const code = m[1]!.startsWith('x') ? parseInt(m[1]!.slice(1), 16) : parseInt(m[1]!, 10);
      const ch = String.fromCodePoint(code);
      if (ILLEGAL.test(ch)) fail(`illegal character reference ${whole}`);
      return ch;
    });
  };
  const skipMisc = () => {
    for (;;) {
      const ws = /^\s*/.exec(source.slice(i))![0];
      i += ws.length;
      if (source.startsWith('<!--', i)) {
        const end = source.indexOf('-->', i);
        if (end < 0) fail('unclosed comment');
        i = end + 3;
      } else return;
    }
  };

  if (source.startsWith('<?xml')) {
    const end = source.indexOf('?>');
    if (end < 0) fail('unclosed XML declaration');
    if (!/^<\?xml version="1\.0"( encoding="[A-Za-z0-9._-]+")?( standalone="(yes|no)")?\s*\?>$/.test(source.slice(0, end + 2))) fail('bad XML declaration');
    i = end + 2;
  }
  skipMisc();

  const element = (): XmlElement => {
    if (source[i] !== '<') fail('expected <');
    i++;
    const name = NAME.exec(source.slice(i))?.[0] ?? fail('expected a tag name');
    i += name.length;
    const attrs: Record<string, string> = {};
    for (;;) {
      const ws = /^\s*/.exec(source.slice(i))![0];
      i += ws.length;
      if (source.startsWith('/>', i)) {
        i += 2;
        return { name, attrs, children: [], text: '' };
      }
      if (source[i] === '>') {
        i++;
        break;
      }
      if (ws.length === 0) fail('expected whitespace before an attribute');
      const attr = NAME.exec(source.slice(i))?.[0] ?? fail('expected an attribute name');
      i += attr.length;
      const m = /^\s*=\s*(["'])/.exec(source.slice(i)) ?? fail('expected ="');
      i += m[0].length;
      const end = source.indexOf(m[1]!, i);
      if (end < 0) fail('unclosed attribute value');
      if (attr in attrs) fail(`duplicate attribute ${attr}`);
      attrs[attr] = decode(source.slice(i, end));
      i = end + 1;
    }
    const children: XmlElement[] = [];
    let text = '';
    for (;;) {
      if (i >= source.length) fail(`unclosed <${name}>`);
      if (source.startsWith('</', i)) {
        i += 2;
        const close = NAME.exec(source.slice(i))?.[0];
        if (close !== name) fail(`</${close}> closes <${name}>`);
        i += name.length;
        const m = /^\s*>/.exec(source.slice(i)) ?? fail('expected >');
        i += m[0].length;
        return { name, attrs, children, text };
      }
      if (source.startsWith('<!--', i)) {
        skipMisc();
        continue;
      }
      if (source[i] === '<') {
        children.push(element());
        continue;
      }
      const next = source.indexOf('<', i);
      const raw = source.slice(i, next < 0 ? source.length : next);
      if (raw.includes(']]>')) fail(']]> in text');
      text += decode(raw);
      i += raw.length;
    }
  };

  const root = element();
  skipMisc();
  if (i !== source.length) fail('content after the root element');
  return root;
}

/** Every descendant element (depth first) with this name. */
export function findAll(el: XmlElement, name: string): XmlElement[] {
  return el.children.flatMap((c) => [...(c.name === name ? [c] : []), ...findAll(c, name)]);
}
