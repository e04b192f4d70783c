// Build the web app into dist/: TypeScript generated from ../proto (buf + the local protoc-gen-es),
// bundled and minified by esbuild. Prints the compressed size of the JavaScript.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const here = new URL(".", import.meta.url).pathname;
const newest = (dir) => readdirSync(dir, { recursive: true }).map((f) => statSync(`${dir}/${f}`).mtimeMs).reduce((a, b) => Math.max(a, b), 0);
const gen = `${here}src/gen/.stamp`;
if (!existsSync(gen) || statSync(gen).mtimeMs < newest(`${here}../proto`)) {
  execFileSync(`${here}node_modules/.bin/buf`, ["generate", "../proto", "--template", "buf.gen.yaml"], { cwd: here, stdio: "inherit" });
  writeFileSync(gen, "");
}
mkdirSync(`${here}dist`, { recursive: true });
await build({
  entryPoints: [`${here}src/main.tsx`], bundle: true, minify: true, format: "esm", target: "es2022",
  jsx: "automatic", jsxImportSource: "preact", outfile: `${here}dist/app.js`, sourcemap: false, logLevel: "warning",
});
copyFileSync(`${here}src/index.html`, `${here}dist/index.html`);
copyFileSync(`${here}src/app.css`, `${here}dist/app.css`);
const js = readFileSync(`${here}dist/app.js`);
console.log(`web: dist/app.js ${(js.length / 1024).toFixed(1)} KB, ${(gzipSync(js).length / 1024).toFixed(1)} KB gzip`);
