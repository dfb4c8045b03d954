// Cached downloads in the Origin Private File System (OPFS), for jaxweb.io.fetch_weights.
//
// Python decides what to fetch and parses the bytes; this module only moves bytes:
// stream a URL (reporting progress), keep a copy under a key in one OPFS folder, read it
// back on the next load. A copy becomes visible only when the download completed, since a
// writable stream commits on close(). Where OPFS is missing (Node, old browsers, insecure
// pages) it fetches without caching.

const FOLDER = 'jaxweb-weights';

export function available() {
  return typeof navigator !== 'undefined' && typeof navigator.storage?.getDirectory === 'function';
}

async function folder(create = true) {
  const root = await navigator.storage.getDirectory();
  return root.getDirectoryHandle(FOLDER, { create });
}

/** The cached bytes of `key`, or null. */
export async function read(key) {
  if (!available()) return null;
  try {
    const file = await (await (await folder()).getFileHandle(key)).getFile();
    return new Uint8Array(await file.arrayBuffer());
  } catch (e) {
    if (e.name === 'NotFoundError' || e.name === 'TypeMismatchError') return null;
    throw e;
  }
}

export async function write(key, bytes) {
  const handle = await (await folder()).getFileHandle(key, { create: true });
  const w = await handle.createWritable();
  try {
    await w.write(bytes);
    await w.close();
  } catch (e) {
    await w.abort().catch(() => {});
    throw e;
  }
}

export async function remove(key) {
  if (!available()) return;
  try {
    await (await folder()).removeEntry(key);
  } catch (e) {
    if (e.name !== 'NotFoundError') throw e;
  }
}

export async function clear() {
  if (!available()) return;
  try {
    await (await navigator.storage.getDirectory()).removeEntry(FOLDER, { recursive: true });
  } catch (e) {
    if (e.name !== 'NotFoundError') throw e;
  }
}

/** The cached keys. */
export async function keys() {
  if (!available()) return [];
  const out = [];
  for await (const name of (await folder()).keys()) out.push(name);
  return out;
}

/** Stream `url` into one Uint8Array, calling onProgress(received, total or -1). */
export async function download(url, onProgress) {
  const resp = await fetch(url);
  if (!resp.ok) throw new Error(`jaxweb: cannot fetch ${url}: HTTP ${resp.status} ${resp.statusText}`);
  const total = Number(resp.headers.get('Content-Length') ?? -1);
  if (!resp.body) {
    const bytes = new Uint8Array(await resp.arrayBuffer());
    onProgress?.(bytes.length, total);
    return bytes;
  }
  const reader = resp.body.getReader();
  const chunks = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    received += value.length;
    onProgress?.(received, total);
  }
  const out = new Uint8Array(received);
  let at = 0;
  for (const c of chunks) { out.set(c, at); at += c.length; }
  return out;
}

/** {bytes, cached}: from OPFS under `key` if there, else downloaded (and stored when key is set). */
export async function cachedFetch(url, key, onProgress) {
  if (key) {
    const hit = await read(key);
    if (hit) {
      onProgress?.(hit.length, hit.length);
      return { bytes: hit, cached: true };
    }
  }
  const bytes = await download(url, onProgress);
  if (key && available()) {
    try {
      await write(key, bytes);
    } catch (e) {
      console.warn(`jaxweb: could not cache ${url} in OPFS (${e.message}); it will be downloaded again next time`);
    }
  }
  return { bytes, cached: false };
}
