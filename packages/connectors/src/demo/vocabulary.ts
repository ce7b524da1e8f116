// Word lists the demo workspace is assembled from. Every company, domain and product here is
// fictional (".example" tenants, invented partners and vendors).

export const FIRST_NAMES = [
  "alice",
  "bruno",
  "chloe",
  "dmitri",
  "emma",
  "farah",
  "george",
  "hana",
  "ivan",
  "julia",
  "kofi",
  "lena",
  "marco",
  "nadia",
  "oscar",
  "priya",
  "quentin",
  "rosa",
  "samir",
  "tara",
  "umar",
  "vera",
  "wei",
  "ximena",
  "yusuf",
  "zoe",
  "aaron",
  "beatriz",
  "carlos",
  "daniela",
  "elif",
  "felix",
  "grace",
  "hugo",
  "ines",
  "jonas",
  "kira",
  "liam",
  "maya",
  "noah",
  "olga",
  "pablo",
  "rania",
  "sven",
  "tomas",
  "ursula",
  "victor",
  "wanda",
  "yara",
  "zane",
] as const;

export const LAST_NAMES = [
  "anderson",
  "bakker",
  "costa",
  "dubois",
  "eriksen",
  "fischer",
  "garcia",
  "haddad",
  "ito",
  "jansen",
  "kowalski",
  "lopez",
  "moreau",
  "nakamura",
  "okafor",
  "petrov",
  "quinn",
  "rossi",
  "schmidt",
  "tanaka",
  "usman",
  "varga",
  "weber",
  "xu",
  "yamada",
  "zimmer",
  "abbott",
  "berger",
  "chen",
  "delgado",
  "evans",
  "ferreira",
  "gupta",
  "hansen",
  "ivanova",
  "jung",
  "kim",
  "larsen",
  "mendes",
  "novak",
  "obrien",
  "park",
  "reyes",
  "silva",
  "torres",
  "ueda",
  "vogel",
  "walsh",
  "young",
  "zhang",
  "adeyemi",
  "brandt",
  "castro",
  "dimitrov",
  "engel",
  "fontaine",
  "greco",
  "holm",
  "iqbal",
  "keller",
] as const;

export const COMPANIES = [
  "acme",
  "globex",
  "initech",
  "umbrella",
  "hooli",
  "vandelay",
  "soylent",
  "tyrell",
  "wonka",
  "cyberdyne",
  "aperture",
  "gringotts",
  "oscorp",
  "massive",
  "stark",
  "wayne",
  "pied-piper",
  "dunder",
  "prestige",
  "monarch",
] as const;

/** Organisations the tenant works with; an administrator would plausibly trust some of them. */
export const PARTNER_DOMAINS = [
  "northwind-traders.com",
  "contoso-consulting.com",
  "fabrikam-legal.com",
  "tailspin-audit.com",
  "wingtip-logistics.com",
  "adatum-partners.com",
  "litware-design.com",
  "proseware-payroll.com",
  "woodgrove-finance.com",
  "alpine-advisors.com",
  "blue-yonder-marketing.com",
  "coho-research.com",
] as const;

export const PERSONAL_MAIL_DOMAINS = [
  "gmail.com",
  "outlook.com",
  "yahoo.com",
  "hotmail.com",
  "proton.me",
  "icloud.com",
] as const;

export const STARTUP_PREFIXES = [
  "quick",
  "synth",
  "data",
  "hyper",
  "neo",
  "byte",
  "cloud",
  "flux",
  "zen",
  "omni",
] as const;
export const STARTUP_SUFFIXES = ["labs", "ly", "hub", "stack", "forge", "wave", "loop", "grid"] as const;
export const STARTUP_TLDS = [".io", ".ai", ".app", ".co"] as const;

/**
 * File name stems; `sensitive` ones carry the words a data-exposure rule looks for. `level` is the
 * sensitivity label a careful owner would give the file (the demo labels some files, not all).
 */
export const FILE_STEMS = [
  { stem: "Q{q} Board Deck", kind: "slides", sensitive: false, level: "confidential" },
  { stem: "Marketing Plan {y}", kind: "doc", sensitive: false, level: "internal" },
  { stem: "Customer List", kind: "sheet", sensitive: false, level: "confidential" },
  { stem: "Product Roadmap", kind: "slides", sensitive: false, level: "confidential" },
  { stem: "Team Offsite Notes", kind: "doc", sensitive: false, level: "internal" },
  { stem: "Sales Pipeline {y}", kind: "sheet", sensitive: false, level: "confidential" },
  { stem: "Onboarding Checklist", kind: "doc", sensitive: false, level: "internal" },
  { stem: "Brand Guidelines", kind: "pdf", sensitive: false, level: "public" },
  { stem: "Architecture Overview", kind: "doc", sensitive: false, level: "internal" },
  { stem: "Meeting Notes {d}", kind: "doc", sensitive: false, level: "internal" },
  { stem: "Budget Forecast {y}", kind: "sheet", sensitive: false, level: "confidential" },
  { stem: "Press Kit", kind: "zip", sensitive: false, level: "public" },
  { stem: "Event Photos {d}", kind: "image", sensitive: false, level: "public" },
  { stem: "Support Tickets Export", kind: "csv", sensitive: false, level: "confidential" },
  { stem: "Hiring Plan {y}", kind: "sheet", sensitive: false, level: "confidential" },
  { stem: "Release Notes {v}", kind: "doc", sensitive: false, level: "public" },
  { stem: "Competitive Analysis", kind: "doc", sensitive: false, level: "internal" },
  { stem: "Webinar Slides", kind: "slides", sensitive: false, level: "public" },
  { stem: "Payroll {y}-{m}", kind: "sheet", sensitive: true, level: "highly_confidential" },
  { stem: "Passwords", kind: "sheet", sensitive: true, level: "highly_confidential" },
  { stem: "Vendor Contract {v}", kind: "pdf", sensitive: true, level: "confidential" },
  { stem: "Confidential - Acquisition Memo", kind: "doc", sensitive: true, level: "highly_confidential" },
  { stem: "Employee SSN List", kind: "csv", sensitive: true, level: "highly_confidential" },
  { stem: "Invoice {n}", kind: "pdf", sensitive: true, level: "confidential" },
  { stem: "Salary Bands {y}", kind: "sheet", sensitive: true, level: "highly_confidential" },
] as const;

/** Sensitivity label levels, least sensitive first. */
export const LABEL_LEVELS = ["public", "internal", "confidential", "highly_confidential"] as const;
export type TLabelLevel = (typeof LABEL_LEVELS)[number];

/**
 * Each source's label names for the levels. Microsoft 365: Microsoft Purview's default sensitivity
 * labels (Public, General, Confidential, Highly Confidential; Personal is left out). Google
 * Workspace has no default taxonomy: a "Sensitivity" badged Drive label with the usual choices.
 */
export const LABEL_NAMES = {
  google_workspace: {
    public: "Public",
    internal: "Internal",
    confidential: "Confidential",
    highly_confidential: "Highly Confidential",
  },
  microsoft_365: {
    public: "Public",
    internal: "General",
    confidential: "Confidential",
    highly_confidential: "Highly Confidential",
  },
} as const satisfies Record<string, Record<TLabelLevel, string>>;

export type TFileKind = (typeof FILE_STEMS)[number]["kind"];

export const FILE_SUFFIXES = ["", "", "", " (final)", " v2", " - copy", " DRAFT", " (1)"] as const;

export const DRIVE_NAMES = [
  "Finance",
  "Legal",
  "Engineering",
  "Marketing",
  "Sales",
  "People Ops",
  "Design",
  "Customer Success",
  "Executive",
  "Security",
  "Partnerships",
  "Product",
  "Data Science",
  "Procurement",
  "IT",
  "Research",
] as const;

export const APP_ADJECTIVES = [
  "Smart",
  "Quick",
  "Easy",
  "Super",
  "Magic",
  "Insta",
  "Auto",
  "Pro",
  "Ultra",
  "Simple",
] as const;
export const APP_NOUNS = [
  "PDF",
  "Mail Merge",
  "Scheduler",
  "Signature",
  "Backup",
  "Notes",
  "Forms",
  "Sync",
  "Translate",
  "Charts",
] as const;
export const AI_NOUNS = [
  "Writer AI",
  "Inbox GPT",
  "Copilot",
  "Summarizer AI",
  "Assistant",
  "Meeting Bot",
] as const;
