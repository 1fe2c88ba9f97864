// The dashboard API (below the page, at api/): every call carries the per-run dashboard key.

const KEY_HEADER = "x-reportkit-dashboard-key";

/** The dashboard key: from the printed URL's #key=, kept for this tab, then out of the URL. */
function readKey() {
  const fromHash = new URLSearchParams(location.hash.slice(1)).get("key");
  if (fromHash) {
    sessionStorage.setItem("reportkit-dashboard-key", fromHash);
    history.replaceState(null, "", location.pathname + location.search);
    return fromHash;
  }
  return sessionStorage.getItem("reportkit-dashboard-key");
}

/** Read once, as the page loads. */
export const key = readKey();

/** One API call; its JSON reply, or an Error saying the status and what the API said. */
export async function api(method, path, body) {
  const response = await fetch(`api/${path}`, {
    method,
    headers: {
      [KEY_HEADER]: key ?? "",
      accept: "application/json",
      // The sandbox takes a request that changes something only as application/json, body or
      // not (a cross-site form cannot send that type): every non-GET declares it, with at least "{}".
      ...(method === "GET" ? {} : { "content-type": "application/json" }),
    },
    body: method === "GET" ? undefined : JSON.stringify(body ?? {}),
  });
  let json = null;
  try {
    json = await response.json();
  } catch {
    // Not JSON: the status says enough.
  }
  if (!response.ok) {
    const fields = json?.errors ? Object.values(json.errors).flat() : [];
    const message = fields.length > 0 ? fields.join(" ") : (json?.message ?? "");
    throw new Error(`${response.status}: ${message || response.statusText}`);
  }
  return json;
}
