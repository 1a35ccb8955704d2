// ONNX Runtime's own per-node profile of one model (onnxruntime-node, CPU,
// THREADS intra-op threads, all graph optimisations), the peer of
// kernel_times.py:
//   node ort_profile.js ORT_MODULE_DIR MODEL.onnx D0,D1,... RUNS PREFIX THREADS
// Runs the model RUNS times on a fixed input and writes ORT's profile JSON
// (PREFIX*.json). ort_profile.py starts it and sums the JSON up.
'use strict';
const [ortDir, modelPath, dims, runs, prefix, threads] = process.argv.slice(2);
const ort = require(ortDir);

async function main() {
  const session = await ort.InferenceSession.create(modelPath, {
    intraOpNumThreads: Number(threads || 1),
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    enableProfiling: true,
    profileFilePrefix: prefix,
  });
  const shape = dims.split(',').map(Number);
  const data = new Float32Array(shape.reduce((a, b) => a * b, 1)).map((_, i) => Math.sin(i));
  const feeds = {[session.inputNames[0]]: new ort.Tensor('float32', data, shape)};
  for (let i = 0; i < Number(runs); ++i) await session.run(feeds);
  session.endProfiling();
}
main().catch((e) => { console.error(e); process.exit(1); });
