// Posts what the page sends it to /collect and answers 1 when the post went out, 0 when not.
onconnect = (e) => {
  const port = e.ports[0];
  port.onmessage = (m) =>
    fetch('/collect', { method: 'POST', body: m.data }).then(() => port.postMessage(1), () => port.postMessage(0));
};
