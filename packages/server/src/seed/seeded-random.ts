/** Numbers in [0, 1) from a fixed seed (mulberry32): the same archive from the same seed, on every machine. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface Position {
  lat: number;
  lng: number;
}

const KM_PER_DEGREE = 111.32;

/** A point uniformly spread over the disc of `radiusKm` around `centre`, to six decimals (about 10 cm). */
export function pointNear(centre: Position, radiusKm: number, random: () => number): Position {
  const r = radiusKm * Math.sqrt(random());
  const bearing = 2 * Math.PI * random();
  const lat = centre.lat + (r * Math.cos(bearing)) / KM_PER_DEGREE;
  const lng = centre.lng + (r * Math.sin(bearing)) / (KM_PER_DEGREE * Math.cos((centre.lat * Math.PI) / 180));
  return { lat: Math.round(lat * 1e6) / 1e6, lng: Math.round(lng * 1e6) / 1e6 };
}

/** One element of `list`, picked by `random`. */
export function pick<T>(list: ArrayLike<T>, random: () => number): T {
  return list[Math.floor(random() * list.length)] as T;
}
