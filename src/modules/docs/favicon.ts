/**
 * The icon browsers ask for at /favicon.ico (the console and the API docs page link to it too): a
 * 32×32 Windows icon drawn here, so no binary file is kept in the repository. A red disc with a white
 * ring: Scent's mark.
 */
const SIZE = 32;

export function faviconIco(): Buffer {
  const pixels = Buffer.alloc(SIZE * SIZE * 4); // BGRA, rows bottom-up
  const centre = (SIZE - 1) / 2;
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const r = Math.hypot(x - centre, y - centre);
      // disc of radius 15, a white ring between 8 and 10.5
      const [red, green, blue, alpha] = r > 15.5 ? [0, 0, 0, 0] : r >= 8 && r <= 10.5 ? [255, 255, 255, 255] : [179, 45, 46, 255];
      const at = ((SIZE - 1 - y) * SIZE + x) * 4;
      pixels[at] = blue;
      pixels[at + 1] = green;
      pixels[at + 2] = red;
      pixels[at + 3] = alpha;
    }
  }
  const mask = Buffer.alloc((SIZE / 8) * SIZE); // AND mask, all 0: the alpha channel decides
  const info = Buffer.alloc(40); // BITMAPINFOHEADER
  info.writeUInt32LE(40, 0);
  info.writeInt32LE(SIZE, 4);
  info.writeInt32LE(SIZE * 2, 8); // colour and mask
  info.writeUInt16LE(1, 12);
  info.writeUInt16LE(32, 14);
  info.writeUInt32LE(pixels.length + mask.length, 20);
  const image = Buffer.concat([info, pixels, mask]);
  const header = Buffer.alloc(6 + 16); // ICONDIR + one ICONDIRENTRY
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2); // icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(SIZE, 6);
  header.writeUInt8(SIZE, 7);
  header.writeUInt16LE(1, 10); // planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(image.length, 14);
  header.writeUInt32LE(header.length, 18);
  return Buffer.concat([header, image]);
}
