// The minimal Probot app of the webhook-intake benchmark: Probot verifies each delivery's
// signature and answers; the handler stores nothing.
export default (app) => {
  app.on("issue_comment.created", async () => {});
};
