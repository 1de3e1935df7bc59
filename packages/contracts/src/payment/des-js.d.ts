// des.js ships no types: the part of its API sts.ts uses.
declare module 'des.js' {
  interface Cipher {
    update(data: Uint8Array | number[]): number[];
    final(): number[];
  }
  const des: { DES: { create(options: { type: 'encrypt' | 'decrypt'; key: Uint8Array; padding: boolean }): Cipher } };
  export default des;
}
