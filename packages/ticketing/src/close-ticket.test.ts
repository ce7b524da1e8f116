import { AppError } from "@posture/platform";
import { afterEach, describe, expect, it } from "vitest";
import { closeTicket, createTicket } from "./create-ticket";
import { sampleFinding, startFakeGithub, startFakeJira, startFakeLinear } from "../../fakes/src/trackers";
import type { TFakeTracker } from "../../fakes/src/trackers";
import type { TTicketingConfig } from "./types";

const TEAM = { id: "0b6f3a57-3c1e-4d8a-9f0e-2a7b9c1d4e5f", key: "SEC" };
const COMMENT = {
  text: "Resolved in Posture by remediation rem_1 (audit entry aud_1).\n\nPosture reference: tkt_1",
  marker: "Posture reference: tkt_1",
};

const open: TFakeTracker[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((f) => f.close()));
});

async function post(url: string, headers: Record<string, string>, body: unknown) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as unknown) : undefined };
}

describe("closeTicket", () => {
  it("Jira: one ADF comment, the transition to done; a second close changes nothing", async () => {
    const fake = await startFakeJira();
    open.push(fake);
    const config: TTicketingConfig = {
      provider: "jira",
      baseUrl: fake.url,
      project: "SEC",
      token: fake.token,
    };
    const t = await createTicket(config, sampleFinding());
    expect(await closeTicket(config, t.externalId, COMMENT)).toEqual({ commented: true, transitioned: true });
    expect(await closeTicket(config, t.externalId, COMMENT)).toEqual({
      commented: false,
      transitioned: false,
    });
    const issue = fake.issues.get(t.externalId);
    expect(issue?.status).toEqual({ id: "10001", name: "Done", category: "done" });
    expect(issue?.transitions).toEqual(["31"]);
    expect(issue?.comments).toEqual([
      {
        type: "doc",
        version: 1,
        content: [
          {
            type: "paragraph",
            content: [
              { type: "text", text: "Resolved in Posture by remediation rem_1 (audit entry aud_1)." },
            ],
          },
          { type: "paragraph", content: [{ type: "text", text: "Posture reference: tkt_1" }] },
        ],
      },
    ]);
  });

  it("Jira: a workflow without a done transition fails the close (upstream_unavailable), after commenting once", async () => {
    const fake = await startFakeJira({
      workflow: [{ transitionId: "21", to: { id: "3", name: "In Progress", category: "indeterminate" } }],
    });
    open.push(fake);
    const config: TTicketingConfig = {
      provider: "jira",
      baseUrl: fake.url,
      project: "SEC",
      token: fake.token,
    };
    const t = await createTicket(config, sampleFinding());
    for (let i = 0; i < 2; i++) {
      const err = await closeTicket(config, t.externalId, COMMENT).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe("upstream_unavailable");
      expect((err as AppError).message).toBe(
        `Jira rejected the request: no transition to a done status from the issue's status (${t.externalId})`,
      );
    }
    expect(fake.issues.get(t.externalId)?.comments).toHaveLength(1);
  });

  it("fake Jira refuses an unknown transition, a missing auth header and a bad comment body as Jira does", async () => {
    const fake = await startFakeJira();
    open.push(fake);
    const config: TTicketingConfig = {
      provider: "jira",
      baseUrl: fake.url,
      project: "SEC",
      token: fake.token,
    };
    const t = await createTicket(config, sampleFinding());
    const auth = { authorization: `Basic ${Buffer.from(fake.token).toString("base64")}` };
    const base = `${fake.url}/rest/api/3/issue/${t.externalId}`;
    expect(await post(`${base}/transitions`, auth, { transition: { id: "99" } })).toEqual({
      status: 400,
      json: { errorMessages: ["Transition id '99' is not valid for this issue."], errors: {} },
    });
    expect(await post(`${base}/transitions`, {}, { transition: { id: "31" } })).toEqual({
      status: 401,
      json: { errorMessages: ["Client must be authenticated to access this resource."], errors: {} },
    });
    expect(await post(`${base}/comment`, auth, { body: "plain text is not ADF" })).toEqual({
      status: 400,
      json: {
        errorMessages: [],
        errors: {
          comment: "Operation value must be an Atlassian Document (see the Atlassian Document Format)",
        },
      },
    });
    expect(fake.issues.get(t.externalId)).toMatchObject({ comments: [], transitions: [] });
  });

  it("Linear: one comment, the team's completed state; a second close changes nothing", async () => {
    const fake = await startFakeLinear({ teams: [TEAM] });
    open.push(fake);
    const config: TTicketingConfig = {
      provider: "linear",
      baseUrl: fake.url,
      project: TEAM.id,
      token: fake.apiKey,
    };
    const t = await createTicket(config, sampleFinding());
    expect(await closeTicket(config, t.externalId, COMMENT)).toEqual({ commented: true, transitioned: true });
    expect(await closeTicket(config, t.externalId, COMMENT)).toEqual({
      commented: false,
      transitioned: false,
    });
    const done = fake.statesOf(TEAM.id).find((s) => s.type === "completed");
    expect(done?.name).toBe("Done");
    const issue = fake.issues.get(t.externalId);
    expect(issue?.state).toEqual(done);
    expect(issue?.stateChanges).toEqual([done?.id]);
    expect(issue?.comments).toEqual([COMMENT.text]);
  });

  it("fake Linear refuses an unknown state, a missing auth header and an empty comment as Linear does", async () => {
    const fake = await startFakeLinear({ teams: [TEAM] });
    open.push(fake);
    const config: TTicketingConfig = {
      provider: "linear",
      baseUrl: fake.url,
      project: TEAM.id,
      token: fake.apiKey,
    };
    const t = await createTicket(config, sampleFinding());
    const issueId = fake.issues.get(t.externalId)?.id ?? "";
    const update =
      "mutation U($id: String!, $input: IssueUpdateInput!) { issueUpdate(id: $id, input: $input) { success } }";
    const err = (message: string, code: string) => ({
      status: 400,
      json: { errors: [{ message, extensions: { code, userPresentableMessage: message } }], data: null },
    });
    expect(
      await post(
        `${fake.url}/graphql`,
        { authorization: fake.apiKey },
        {
          query: update,
          variables: { id: issueId, input: { stateId: "not-a-state" } },
        },
      ),
    ).toEqual(err("Entity not found: WorkflowState", "INVALID_INPUT"));
    expect(
      await post(`${fake.url}/graphql`, {}, { query: update, variables: { id: issueId, input: {} } }),
    ).toEqual(err("Authentication required, not authenticated", "AUTHENTICATION_ERROR"));
    const comment = "mutation C($input: CommentCreateInput!) { commentCreate(input: $input) { success } }";
    expect(
      await post(
        `${fake.url}/graphql`,
        { authorization: fake.apiKey },
        {
          query: comment,
          variables: { input: { issueId, body: " " } },
        },
      ),
    ).toEqual(err("Argument Validation Error: body should not be empty", "INVALID_INPUT"));
    expect(fake.issues.get(t.externalId)).toMatchObject({ comments: [], stateChanges: [] });
  });

  it("GitHub: one comment, closed as completed; a second close changes nothing", async () => {
    const fake = await startFakeGithub();
    open.push(fake);
    const config: TTicketingConfig = {
      provider: "github",
      baseUrl: fake.url,
      project: fake.repo,
      token: fake.token,
    };
    const t = await createTicket(config, sampleFinding());
    expect(await closeTicket(config, t.externalId, COMMENT)).toEqual({ commented: true, transitioned: true });
    expect(await closeTicket(config, t.externalId, COMMENT)).toEqual({
      commented: false,
      transitioned: false,
    });
    expect(fake.issues.get(1)).toEqual({
      state: "closed",
      stateReason: "completed",
      comments: [COMMENT.text],
      closes: 1,
    });
  });
});
