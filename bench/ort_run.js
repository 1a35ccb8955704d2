// Times ONNX Runtime (onnxruntime-node, CPU) on one model, the peer of
// tractc's `--main --repeat`: run_bench.py starts it.
//   node ort_run.js ORT_MODULE_DIR MODEL.onnx INPUT.f32 D0,D1,... THREADS REPEAT
// INPUT.f32 is the raw little-endian float32 input. Prints median_ms=<float>
// over REPEAT timed runs after 5 warm-up runs (each run awaits the result).
'use strict';
const fs = require('fs');
const [ortDir, modelPath, inputPath, dims, threads, repeat] = process.argv.slice(2);
const ort = require(ortDir);

async function main() {
  const session = await ort.InferenceSession.create(modelPath, {
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const bytes = fs.readFileSync(inputPath);
  const data = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
  const shape = dims.split(',').map(Number);
  const feeds = {[session.inputNames[0]]: new ort.Tensor('float32', data, shape)};
  for (let i = 0; i < 5; ++i) await session.run(feeds);
  const times = [];
  for (let i = 0; i < Number(repeat); ++i) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  console.log(`median_ms=${times[Math.floor(times.length / 2)]}`);
}
main().catch((e) => { console.error(e); process.exit(1); });
