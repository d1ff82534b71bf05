/**
 * A contract type without the index signatures of its open (`looseObject`) objects, all the way
 * down: what the service must send at least. The service's own interfaces have no index
 * signature, so `answer satisfies Closed<Turn>` checks a mapper against API.md field by field.
 */
export type Closed<T> = T extends readonly (infer U)[]
  ? Closed<U>[]
  : T extends Record<string, unknown>
    ? { [K in keyof T as string extends K ? never : number extends K ? never : K]: Closed<T[K]> }
    : T;
