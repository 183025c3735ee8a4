// The document as text: YAML (docs/openapi.yaml, `offramp openapi`) or JSON (`--json`);
// the same for the overlay `offramp conform --overlay` writes.
// YAML comes from the `yaml` package rather than an emitter of our own: the document's
// strings hold quotes, colons, `#`, braces and newlines, which is where hand-made YAML goes
// wrong, and the package is loaded only by `offramp openapi`.
import { stringify } from 'yaml';

/** A document (or an overlay) as YAML: keys in the document's order, no line folding, no anchors. */
export function toYaml(doc: object): string {
  // aliasDuplicateObjects off: an object used twice (a shared parameter) is written out
  // twice, never as an anchor and alias, which some OpenAPI tools refuse.
  return stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false, version: '1.2' });
}

export function toJson(doc: object): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}
