#!/usr/bin/env node
// The `reportkit` command. A committed file, not dist/cli.js itself: a fresh `pnpm install` of
// the repository links every bin before anything is built, and a bin whose file is not there
// yet is a warning on every install.
import "../dist/cli.js";
