// showOpenFilePicker served by a file input (see browser/file_pickers.rs). Runs in the page's
// own world before its scripts: Chrome answers the File System Access pickers of an
// intercepting session with an AbortError and nothing to answer them with, so the picker
// becomes a hidden <input type=file> whose chooser reaches the person (or an agent's
// upload_file) like any other. The handles it resolves with read the chosen files; they
// cannot be written (the file lives on the person's machine).
(() => {
  if (typeof window.showOpenFilePicker !== 'function' || window.showOpenFilePicker.porthole) return;
  const Handle = window.FileSystemFileHandle;
  const handleOf = (file) => {
    const handle = Object.create(Handle ? Handle.prototype : Object.prototype);
    Object.defineProperties(handle, {
      kind: {value: 'file', enumerable: true},
      name: {value: file.name, enumerable: true},
      getFile: {value: async () => file},
      isSameEntry: {value: async (other) => other === handle},
      queryPermission: {value: async () => 'granted'},
      requestPermission: {value: async () => 'granted'},
      createWritable: {value: async () => {
        throw new DOMException('This file was handed to the page; it cannot be written back.', 'NotAllowedError');
      }},
    });
    return handle;
  };
  const acceptOf = (types) => (Array.isArray(types) ? types : [])
    .flatMap((t) => Object.entries((t && t.accept) || {}).flatMap(([mime, exts]) => [mime].concat(exts)))
    .join(',');
  function showOpenFilePicker(options) {
    options = options || {};
    return new Promise((resolve, reject) => {
      const input = document.createElement('input');
      input.type = 'file';
      input.multiple = !!options.multiple;
      const accept = acceptOf(options.types);
      if (accept && options.excludeAcceptAllOption) input.accept = accept;
      input.hidden = true;
      input.addEventListener('change', () => {
        input.remove();
        resolve(Array.from(input.files, handleOf));
      }, {once: true});
      input.addEventListener('cancel', () => {
        input.remove();
        reject(new DOMException('The user aborted a request.', 'AbortError'));
      }, {once: true});
      (document.body || document.documentElement).append(input);
      input.click();
    });
  }
  Object.defineProperty(showOpenFilePicker, 'porthole', {value: true});
  Object.defineProperty(window, 'showOpenFilePicker', {value: showOpenFilePicker, writable: true, configurable: true});
})();
