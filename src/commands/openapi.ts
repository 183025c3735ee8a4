// offramp openapi: the document as this project reads it (src/lib/openapi/document.ts;
// docs/api.md, "OpenAPI"), which is docs/openapi.yaml and what a running emulator serves at
// GET /__emulator/openapi.json. No profile, key or request is needed.
import { Command } from '@commander-js/extra-typings';
import type { Context } from '../lib/context.js';
import { examples, type OptionsOf } from './command.js';

export const command = () =>
  new Command('openapi')
    .description('print the OpenAPI 3.1 document of the partner API as offramp reads it')
    .addHelpText('after', examples('offramp openapi > offramp.yaml', 'offramp openapi --json'));

export async function run(_opts: OptionsOf<typeof command>, ctx: Context): Promise<void> {
  const [{ openapiDocument }, { toJson, toYaml }] = await Promise.all([import('../lib/openapi/document.js'), import('../lib/openapi/render.js')]);
  const doc = openapiDocument();
  ctx.io.out(ctx.globals.json ? toJson(doc) : toYaml(doc));
}
