#!/usr/bin/env node
// Compiled entry: `npm run build` (run by `npm ci` through `prepare`) writes dist/.
import '../dist/main.js';
