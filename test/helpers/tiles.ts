// Web Mercator tile arithmetic for tests (XYZ scheme).

/** The tile (x, y) at zoom z holding a lon/lat point, and the point in that tile's 4096-unit grid. */
export function tileAt(lon: number, lat: number, z: number) {
  const n = 2 ** z;
  const fx = ((lon + 180) / 360) * n;
  const r = (lat * Math.PI) / 180;
  const fy = ((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n;
  const x = Math.floor(fx);
  const y = Math.floor(fy);
  return { x, y, px: (fx - x) * 4096, py: (fy - y) * 4096 };
}
