import { type TFakeGraphGroup, type TGraphFixture } from "./fake-graph";

// Directory groups for the Graph fake (issue 30): All Company is made of groups (one direct user
// and a device besides), Engineering and Sales overlap in Alice, a security group has no mail, and
// six small teams pad the listing so it pages and its nine counts take two rounds (eight, then one).

/** All Company's object id: a GUID, so SharePoint's group claim can name it too. */
export const ALL_COMPANY_ID = "0a11c0de-0000-4000-8000-000000000001";

const users = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i + 1}`, type: "user" as const }));

export function buildGraphGroups(teams = 6): TFakeGraphGroup[] {
  return [
    {
      id: ALL_COMPANY_ID,
      displayName: "All Company",
      mail: "allcompany@contoso.test",
      members: [
        { id: "grp-eng", type: "group" },
        { id: "grp-sales", type: "group" },
        { id: "m-admin", type: "user" },
        { id: "dev-kiosk", type: "device" },
      ],
    },
    {
      id: "grp-eng",
      displayName: "Engineering",
      mail: "Engineering@contoso.test",
      members: [...users("u-eng", 5), { id: "m-alice", type: "user" }],
    },
    {
      id: "grp-sales",
      displayName: "Sales",
      mail: "sales@contoso.test",
      members: [...users("u-sales", 3), { id: "m-alice", type: "user" }],
    },
    { id: "grp-sec", displayName: "Security readers", mail: null, members: users("u-sec", 40) },
    ...Array.from({ length: teams }, (_, i) => ({
      id: `grp-team-${i + 1}`,
      displayName: `Team ${i + 1}`,
      mail: `team${i + 1}@contoso.test`,
      members: [{ id: "m-dave", type: "user" as const }],
    })),
  ];
}

/**
 * `fixture` with the groups, and Alice's OneDrive holding two files granted to groups as Graph
 * names an Entra group (its id and display name, no address): Roadmap to All Company (10 people),
 * Pipeline to Sales (4 people).
 */
export function withGroupGrants(fixture: TGraphFixture): TGraphFixture {
  const drives = fixture.drives.map((drive) =>
    drive.id !== "drv-alice"
      ? drive
      : {
          ...drive,
          items: [
            ...drive.items,
            {
              id: "a-roadmap",
              name: "Roadmap.txt",
              size: 10,
              lastModifiedDateTime: "2025-04-20T12:00:00Z",
              file: { mimeType: "text/plain" },
              createdBy: { user: { id: "m-alice" } },
              permissions: [
                {
                  id: "perm-all",
                  roles: ["read"],
                  grantedToV2: { group: { id: ALL_COMPANY_ID, displayName: "All Company" } },
                },
              ],
            },
            {
              id: "a-pipeline",
              name: "Pipeline.txt",
              size: 10,
              lastModifiedDateTime: "2025-04-21T12:00:00Z",
              file: { mimeType: "text/plain" },
              createdBy: { user: { id: "m-alice" } },
              permissions: [
                {
                  id: "perm-sales",
                  roles: ["write"],
                  grantedToV2: { group: { id: "grp-sales", displayName: "Sales" } },
                },
              ],
            },
          ],
        },
  );
  return { ...fixture, drives, groups: buildGraphGroups() };
}
