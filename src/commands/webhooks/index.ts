// offramp webhooks: its commands, in the order its help lists them.
import { Command } from '@commander-js/extra-typings';
import { verb, type Runtime } from '../command.js';
import * as get from './get.js';
import * as list from './list.js';
import * as listen from './listen.js';
import * as replay from './replay.js';
import * as resend from './resend.js';
import * as verify from './verify.js';

export const command = (runtime: Runtime) =>
  new Command('webhooks')
    .description('find, inspect, replay, receive and verify webhook events')
    .addCommand(verb(list, runtime))
    .addCommand(verb(get, runtime))
    .addCommand(verb(replay, runtime))
    .addCommand(verb(listen, runtime))
    .addCommand(verb(verify, runtime))
    .addCommand(verb(resend, runtime));
