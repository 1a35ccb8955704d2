// The oracle: runs one model in ONNX Runtime (onnxruntime-node, CPU, all
// graph optimisations off so that ORT computes the graph as written) and
// writes its outputs. run_zoo.py and the graph fuzzer start it.
//
//   node ort_reference.js ORT_MODULE_DIR SPEC.json
//
// SPEC.json: {"model": PATH, "inputs": [{"name", "dtype", "shape", "path"}],
//             "outdir": DIR, "optimize": BOOL, "threads": N, "repeat": N}
// (threads: intra-op threads, 1 by default; repeat: also time that many runs,
// written to OUTDIR/timing.json as {"median_ms"}).
// or {"jobs": [SPEC, ...]}: several models in one process (the graph fuzzer runs
// hundreds; starting node for each costs more than running them). A job that
// fails writes OUTDIR/error.txt and the others go on.
// Each input is raw little-endian data of its dtype (float32, float64,
// int8, uint8, int16, uint16, int32, int64, bool). For each output K the
// script writes OUTDIR/output_K.bin and a line of OUTDIR/outputs.json:
// [{"name", "dtype", "shape"}] in the model's output order.
'use strict';
const fs = require('fs');
const path = require('path');
const [ortDir, specPath] = process.argv.slice(2);
const ort = require(ortDir);

const ARRAYS = {
  float32: Float32Array, float64: Float64Array, int8: Int8Array, uint8: Uint8Array,
  int16: Int16Array, uint16: Uint16Array, int32: Int32Array, int64: BigInt64Array,
  uint64: BigUint64Array, bool: Uint8Array,
};

function tensorOf(input) {
  const bytes = fs.readFileSync(input.path);
  const Array = ARRAYS[input.dtype];
  if (!Array) throw new Error(`input '${input.name}': dtype ${input.dtype} not handled`);
  // Copy into an aligned buffer: a Buffer's offset need not be a multiple of 8.
  const copy = new ArrayBuffer(bytes.length);
  new Uint8Array(copy).set(bytes);
  return new ort.Tensor(input.dtype, new Array(copy), input.shape);
}

async function runJob(spec) {
  const session = await ort.InferenceSession.create(spec.model, {
    intraOpNumThreads: spec.threads || 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: spec.optimize ? 'all' : 'disabled',
  });
  const feeds = {};
  for (const input of spec.inputs) feeds[input.name] = tensorOf(input);
  const results = await session.run(feeds);
  if (spec.repeat) {
    // Timing (bench/run_zoo_bench.py): 5 warm-up runs, then the median of
    // `repeat` awaited runs.
    for (let i = 0; i < 5; ++i) await session.run(feeds);
    const times = [];
    for (let i = 0; i < spec.repeat; ++i) {
      const t0 = process.hrtime.bigint();
      await session.run(feeds);
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    times.sort((a, b) => a - b);
    fs.writeFileSync(path.join(spec.outdir, 'timing.json'),
                     JSON.stringify({median_ms: times[Math.floor(times.length / 2)]}));
  }
  const described = [];
  session.outputNames.forEach((name, k) => {
    const t = results[name];
    const data = t.type === 'string' ? Buffer.alloc(0)
        : Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
    fs.writeFileSync(path.join(spec.outdir, `output_${k}.bin`), data);
    described.push({name, dtype: t.type, shape: t.dims});
  });
  fs.writeFileSync(path.join(spec.outdir, 'outputs.json'), JSON.stringify(described));
}

async function main() {
  const spec = JSON.parse(fs.readFileSync(specPath, 'utf8'));
  if (!spec.jobs) return runJob(spec);
  for (const job of spec.jobs) {
    try {
      await runJob(job);
    } catch (e) {
      fs.writeFileSync(path.join(job.outdir, 'error.txt'), String(e && e.message || e));
    }
  }
}
main().catch((e) => { console.error(String(e && e.message || e)); process.exit(1); });
