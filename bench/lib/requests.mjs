// Requests the install benches time: a definition sent as a body built beforehand, and /health polled meanwhile.

/** POSTs a ready JSON body and returns the parsed 201 answer (anything else throws with the answer's start). */
export async function postJson(url, path, body) {
  const response = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`POST ${path} → ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

export async function health(url) {
  await (await fetch(`${url}/health`)).text();
}

/** Latencies of GET /health sent one after another until `until` settles. */
export async function pollHealth(url, until) {
  let done = false;
  const stop = () => {
    done = true;
  };
  until.then(stop, stop);
  const latencies = [];
  while (!done) {
    const started = performance.now();
    await health(url);
    latencies.push(performance.now() - started);
  }
  return latencies;
}
