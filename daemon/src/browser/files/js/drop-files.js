// Drops files built from their bytes on the element at (x, y), as a drag from the desktop
// (person_files.rs).
function (x, y, files) {
  const target = document.elementFromPoint(x, y) || document.body;
  const dt = new DataTransfer();
  for (const f of files) {
    const raw = atob(f.data);
    const bytes = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    dt.items.add(new File([bytes], f.name, { type: f.type }));
  }
  const init = { bubbles: true, cancelable: true, composed: true, clientX: x, clientY: y, dataTransfer: dt };
  for (const type of ['dragenter', 'dragover', 'drop']) target.dispatchEvent(new DragEvent(type, init));
  return true;
}
