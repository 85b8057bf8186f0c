"""Dynamic providers for the Google API calls pulumi-gcp cannot make, and their REST client."""
