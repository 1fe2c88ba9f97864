import { z } from "zod";

// Laravel's API-resource paginator, as the provider serves every list: `data`, then `links`
// (first/last/prev/next) and `meta` (current_page, from, to, last_page, per_page, total, path,
// and the numbered `links`, which the client does not read). The management API pages 15
// webhooks, the Pull DLR API 100 records.

/** A whole number, sent as a number or as a digit string (PHP backends mix them). */
export const count = z.union([z.number().int(), z.string().regex(/^\d+$/).transform(Number)], {
  error: "expected a whole number",
});

const nullableCount = count.nullish().transform((v) => v ?? null);

const pageUrl = z
  .string()
  .nullish()
  .transform((s) => s ?? null);

const LinksSchema = z.looseObject({
  first: pageUrl,
  last: pageUrl,
  prev: pageUrl,
  next: pageUrl,
});

const MetaSchema = z.looseObject({
  current_page: count,
  from: nullableCount,
  to: nullableCount,
  last_page: count,
  per_page: count,
  total: count,
  path: pageUrl,
});

/** Where a page sits in the list: `current` of `last`, `perPage` a page, `total` in all. */
export interface PageInfo {
  current: number;
  last: number;
  perPage: number;
  total: number;
  /** 1-based index of the page's first item; null on an empty page. */
  from: number | null;
  to: number | null;
  path: string | null;
}

/** The paginator's links as served (null when absent): the client itself pages by number. */
export interface PageLinks {
  first: string | null;
  last: string | null;
  prev: string | null;
  next: string | null;
}

/** One page of a list: its items, where it sits, and the links as served. */
export interface Page<T> {
  data: T[];
  page: PageInfo;
  links: PageLinks;
}

/**
 * The envelope of a list of `item`s, with or without the paginator: a server that does not
 * paginate (the Pull DLR API asked by `id`, `mobile` or `cid`) is one page holding everything.
 */
export function paginated<T extends z.ZodType>(item: T) {
  return z
    .looseObject({
      message: z.string().optional(),
      data: z.array(item),
      links: LinksSchema.optional(),
      meta: MetaSchema.optional(),
    })
    .transform((r): Page<z.output<T>> => {
      const size = r.data.length;
      const meta = r.meta ?? {
        current_page: 1,
        from: size === 0 ? null : 1,
        to: size === 0 ? null : size,
        last_page: 1,
        per_page: size,
        total: size,
        path: null,
      };
      return {
        data: r.data,
        page: {
          current: meta.current_page,
          last: meta.last_page,
          perPage: meta.per_page,
          total: meta.total,
          from: meta.from,
          to: meta.to,
          path: meta.path,
        },
        links: {
          first: r.links?.first ?? null,
          last: r.links?.last ?? null,
          prev: r.links?.prev ?? null,
          next: r.links?.next ?? null,
        },
      };
    });
}
