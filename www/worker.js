// The page's workers (the engine worker and the metrics worker): the page posts its compiled
// WebAssembly module first; `main` then sees it is in a worker, installs the handler the worker's
// name asks for (src/engine_worker.rs or src/metrics_worker.rs) and posts that it is ready.
import init from './wgslate-web.js';

self.onmessage = async (event) => {
  self.onmessage = null;
  try {
    await init({ module_or_path: event.data });
  } catch (e) {
    self.postMessage(JSON.stringify({ error: String(e) }));
  }
};
