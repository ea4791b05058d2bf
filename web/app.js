// app.js: asks the server whether it is healthy and says so.
'use strict';
document.addEventListener('DOMContentLoaded', async () => {
  const el = document.getElementById('health');
  try {
    const r = await fetch('/healthz');
    el.textContent = r.ok ? 'Server and database are up.' : `Server answered ${r.status}.`;
  } catch (e) {
    el.textContent = 'The server cannot be reached.';
  }
});
