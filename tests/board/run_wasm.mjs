// Runs tests/board/conformance.py on the board's firmware in the MicroPython VM
// (WebAssembly port, npm @micropython/micropython-webassembly-pyscript) under Node.js.
// Usage: node run_wasm.mjs <board dir> <recording>; prints the transcript.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

const here = path.dirname(fileURLToPath(import.meta.url));
const [boardDir, recording] = process.argv.slice(2);
const mp = await loadMicroPython({ stdout: (data) => process.stdout.write(data), linebuffer: false });
mp.FS.mkdir("/board");
for (const name of fs.readdirSync(boardDir)) {
  if (name.endsWith(".py")) {
    mp.FS.writeFile("/board/" + name, fs.readFileSync(path.join(boardDir, name)));
  }
}
mp.FS.writeFile("/conformance.py", fs.readFileSync(path.join(here, "conformance.py")));
mp.FS.writeFile("/recording.txt", fs.readFileSync(recording));
mp.runPython("import sys\nsys.path.insert(0, '/')\nimport conformance\nconformance.main('/recording.txt')");
