// Shows whether the server answers /healthz. Served as a file: the CSP allows no inline script.
fetch('/healthz')
  .then((r) => r.json())
  .then((body) => {
    document.getElementById('health').textContent = body.status === 'ok' ? 'Server status: ok' : 'Server status: unknown';
  })
  .catch(() => {
    document.getElementById('health').textContent = 'Server status: unreachable';
  });
