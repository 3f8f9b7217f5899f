// Builds the two outputs of the package: dist/esm (ES modules) and dist/cjs (CommonJS),
// each with its declaration files, from the one source tree in src/; then the examples
// (build/examples) against the built package, which type-checks them.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");

rmSync(join(root, "dist"), { recursive: true, force: true });
rmSync(join(root, "build"), { recursive: true, force: true });
// The examples (build/examples, not published) compile against the built package.
for (const project of ["tsconfig.json", "tsconfig.cjs.json", "tsconfig.examples.json"]) {
  execFileSync(process.execPath, [tsc, "-p", join(root, project)], { stdio: "inherit" });
}
// dist/cjs is CommonJS although the package says "type": "module".
mkdirSync(join(root, "dist", "cjs"), { recursive: true });
writeFileSync(join(root, "dist", "cjs", "package.json"), '{\n  "type": "commonjs"\n}\n');

// The version the client reports (User-Agent) is the package's.
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const version = readFileSync(join(root, "src", "version.ts"), "utf8");
if (!version.includes(`"${pkg.version}"`)) {
  console.error(`src/version.ts does not say ${pkg.version} (package.json)`);
  process.exit(1);
}
