// The metrics worker: the page posts its compiled WebAssembly module first; `main` then sees it is
// in a worker, installs the job handler (src/metrics_worker.rs) and posts {"ready": true}.
import init from './wgslate-web.js';

self.onmessage = async (event) => {
  self.onmessage = null;
  try {
    await init({ module_or_path: event.data });
  } catch (e) {
    self.postMessage(JSON.stringify({ error: String(e) }));
  }
};
