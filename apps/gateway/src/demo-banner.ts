import type { TDemoSeed } from "@posture/account";

/** What `pnpm start` prints on the first embedded start: how to sign in and call the API right away. */
export function demoBanner(seed: TDemoSeed, url: string): string {
  const users = seed.users
    .map((u) => `    ${u.orgName.padEnd(14)} ${u.role.padEnd(6)} ${u.email}  /  ${u.password}`)
    .join("\n");
  return `
  Demo data created (shown once; the passwords are not stored anywhere readable):
${users}

  API key for ${seed.apiKey.orgName}:  ${seed.apiKey.key}

  Try it:
    curl -s ${url}/api/usage -H "Authorization: Bearer ${seed.apiKey.key}"
    curl -s -c jar -H 'content-type: application/json' \\
      -d '{"email":"${seed.users[0]?.email ?? ""}","password":"${seed.users[0]?.password ?? ""}"}' ${url}/api/auth/sign-in
  Reference: ${url}/api/docs
`;
}
