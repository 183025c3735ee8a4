// Prompts may show text from outside: a base URL from the config file, a profile name from
// the environment, a validation message quoting what was typed. Every prompt the CLI asks
// goes through these wrappers (Context.prompts), so what a prompt shows (its message, an
// input's default, choice names, validation messages) is terminal-safe (sanitize.ts).
import type * as Inquirer from '@inquirer/prompts';
import { terminalSafe } from './sanitize.js';

type Prompts = typeof Inquirer;
const OTHERS = ['password', 'number', 'confirm', 'select', 'checkbox', 'rawlist', 'expand', 'search', 'editor'] as const;
type PromptConfig = { message?: unknown; default?: unknown; choices?: unknown; validate?: (value: never) => unknown };

/** `prompts` with each prompt's shown text made terminal-safe. */
export function safePrompts(prompts: Prompts): Prompts {
  return {
    ...prompts,
    ...Object.fromEntries(OTHERS.map((kind) => [kind, safe(prompts[kind])])),
    // An input's default is shown, and it is the answer when Enter is pressed: the safe form is both.
    input: safe(prompts.input, true),
  };
}

function safe<F extends (config: never, ...rest: never[]) => unknown>(prompt: F, safeDefault = false): F {
  return ((config: PromptConfig, ...rest: never[]) => prompt(safeConfig(config, safeDefault) as never, ...rest)) as unknown as F;
}

function safeConfig(config: PromptConfig, safeDefault: boolean): PromptConfig {
  const validate = config.validate;
  return {
    ...config,
    ...(typeof config.message === 'string' ? { message: terminalSafe(config.message) } : {}),
    ...(safeDefault && typeof config.default === 'string' ? { default: terminalSafe(config.default) } : {}),
    ...(Array.isArray(config.choices) ? { choices: config.choices.map(safeChoice) } : {}),
    ...(validate ? { validate: (value: never) => safeAnswer(validate(value)) } : {}),
  };
}

/** A choice's shown name and description; a Separator or a plain value is left as it is. */
function safeChoice(choice: unknown): unknown {
  if (choice === null || typeof choice !== 'object' || Object.getPrototypeOf(choice) !== Object.prototype) return choice;
  const c = choice as Record<string, unknown>;
  const shown = Object.fromEntries(['name', 'description', 'short'].flatMap((k) => (typeof c[k] === 'string' ? [[k, terminalSafe(c[k])]] : [])));
  return { ...c, ...shown };
}

/** A validation result: true, or a message (maybe awaited) shown under the prompt. */
function safeAnswer(result: unknown): unknown {
  if (result instanceof Promise) return result.then(safeAnswer);
  return typeof result === 'string' ? terminalSafe(result) : result;
}
