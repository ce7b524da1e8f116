export { accountRouter } from "./router";
export { hashPassword, verifyPassword } from "./services/passwords";
