// Run before every test file (vitest's setupFiles, per file even with isolation off): after
// each test, a request that no scripted server (test/helpers/server.ts) was told to expect
// fails the test, whichever file it is in.
import { afterEach } from 'vitest';
import { takeUnexpected } from '../helpers/server.js';

afterEach(() => {
  const extra = takeUnexpected();
  if (extra.length > 0) throw new Error(`the scripted server got ${extra.length} request(s) it was not told to expect:\n${extra.slice(0, 10).join('\n')}`);
});
