// offramp webhooks: its commands, in the order its help lists them.
import { group, type Runner } from '../command.js';
import * as get from './get.js';
import * as list from './list.js';
import * as listen from './listen.js';
import * as replay from './replay.js';
import * as resend from './resend.js';
import * as verify from './verify.js';

export const command = (runner: Runner) => group('webhooks', 'find, inspect, replay, receive and verify webhook events', runner, [list, get, replay, listen, verify, resend]);
