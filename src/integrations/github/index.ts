export { createGithubClient, createGithubClientIfConfigured, type GithubClientOptions, type Octokit } from './client.ts';
