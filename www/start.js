import init from './wgslate-web.js';
init({ module_or_path: './wgslate-web_bg.wasm' });
