/**
 * What a mapping declares for native mode (serving v2 from the store alone),
 * where v2's own behaviour needs more than the field specs say.
 */
export interface NativeSpec {}
