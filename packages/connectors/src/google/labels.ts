import { type TJsonClient } from "../http/client";
import { pagesByToken } from "../http/paginate";
import { type TGAppliedLabel, type TGLabel, type TGLabelList } from "./api-types";

// Drive labels (the Workspace sensitivity labels): the tenant's published taxonomy is read once from
// the Drive Labels API v2; files.list then returns, for those label ids, the values applied to each
// file, which are turned into one display name.

type TChoice = { name: string; badged: boolean };
type TLabelEntry = { title: string; choices: Map<string, TChoice> };

/** The published labels by id, and each selection field's choices by choice id. */
export type TLabelCatalogue = { ids: string[]; byId: Map<string, TLabelEntry> };

export const LABELS_PATH = "/v2/labels";

/** Every published label of the customer, read with the admin's label-admin access. */
export async function readLabelCatalogue(labels: TJsonClient): Promise<TLabelCatalogue> {
  const byId = new Map<string, TLabelEntry>();
  const query = { view: "LABEL_VIEW_FULL", publishedOnly: true, useAdminAccess: true, pageSize: 200 };
  for await (const page of pagesByToken<TGLabelList>(labels, LABELS_PATH, query)) {
    for (const label of page.labels ?? []) addLabel(byId, label);
  }
  return { ids: [...byId.keys()], byId };
}

function addLabel(byId: Map<string, TLabelEntry>, label: TGLabel): void {
  // A disabled label stays readable on the files it was applied to, so it is kept.
  if (!label.id || label.lifecycle?.state === "DELETED") return;
  const choices = new Map<string, TChoice>();
  for (const field of label.fields ?? []) {
    for (const choice of field.selectionOptions?.choices ?? []) {
      const name = choice.properties?.displayName;
      if (choice.id && name)
        choices.set(choice.id, { name, badged: Boolean(choice.properties?.badgeConfig) });
    }
  }
  byId.set(label.id, { title: label.properties?.title ?? label.id, choices });
}

/**
 * The one name a file's labels come to: a selection field's chosen choice ("Confidential") when the
 * label has one, else the label's title. With several labels applied, a badged choice wins (the
 * badge is what Drive shows next to the file name, i.e. the classification), then any choice, then
 * a title; ties keep the catalogue's order.
 */
export function labelName(
  applied: TGAppliedLabel[] | undefined,
  catalogue: TLabelCatalogue | null,
): string | null {
  if (!catalogue || !applied?.length) return null;
  let best: { name: string; rank: number; order: number } | null = null;
  for (const label of applied) {
    const entry = label.id ? catalogue.byId.get(label.id) : undefined;
    if (!entry) continue;
    const order = catalogue.ids.indexOf(label.id ?? "");
    let candidate = { name: entry.title, rank: 0, order };
    for (const field of Object.values(label.fields ?? {})) {
      for (const choiceId of field.selection ?? []) {
        const choice = entry.choices.get(choiceId);
        if (!choice) continue;
        const rank = choice.badged ? 2 : 1;
        if (rank > candidate.rank) candidate = { name: choice.name, rank, order };
      }
    }
    if (!best || candidate.rank > best.rank || (candidate.rank === best.rank && order < best.order))
      best = candidate;
  }
  return best?.name ?? null;
}
