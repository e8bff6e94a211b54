/** Real answers of the sample data, written by scripts/openapi-examples.ts (do not edit by hand). */
export const EXAMPLES: Record<string, unknown> = {
 "get /api/version 200": {
  "data": {
   "API": {
    "current_version": "v2",
    "deprecated_version": "none"
   },
   "server_version": "v0.1.0",
   "product_edition": "enterprise"
  }
 },
 "get /api/v2/self 200": {
  "data": {
   "id": "810712b6-0ef2-4f49-ba0c-b6ec9dae1796",
   "created_at": "2026-11-24T11:00:47.184471Z",
   "updated_at": "2026-11-24T11:00:47.184471Z",
   "deleted_at": {
    "time": "0001-01-01T00:00:00Z",
    "valid": false
   },
   "saml_provider_id": {
    "int32": 0,
    "valid": false
   },
   "sso_provider_id": {
    "int32": 0,
    "valid": false
   },
   "AuthSecret": {
    "id": 1,
    "created_at": "2026-11-24T11:00:47.185979Z",
    "updated_at": "2026-11-24T11:00:47.185979Z",
    "deleted_at": {
     "time": "0001-01-01T00:00:00Z",
     "valid": false
    },
    "digest_method": "scrypt",
    "expires_at": "2027-11-24T11:00:47.185979Z",
    "totp_activated": false
   },
   "roles": [
    {
     "id": 1,
     "created_at": "2026-11-24T11:00:33.831599Z",
     "updated_at": "2026-11-24T11:00:33.831599Z",
     "deleted_at": {
      "time": "0001-01-01T00:00:00Z",
      "valid": false
     },
     "name": "Administrator",
     "description": "Can manage users, clients, and application configuration",
     "permissions": [
      {
       "id": 1,
       "created_at": "2026-11-24T11:00:33.831599Z",
       "updated_at": "2026-11-24T11:00:33.831599Z",
       "deleted_at": {
        "time": "0001-01-01T00:00:00Z",
        "valid": false
       },
       "authority": "app",
       "name": "ReadAppConfig"
      },
      {
       "id": 2,
       "created_at": "2026-11-24T11:00:33.831599Z",
       "updated_at": "2026-11-24T11:00:33.831599Z",
       "deleted_at": {
        "time": "0001-01-01T00:00:00Z",
        "valid": false
       },
       "authority": "app",
       "name": "WriteAppConfig"
      },
      {
       "id": 3,
       "created_at": "2026-11-24T11:00:33.831599Z",
       "updated_at": "2026-11-24T11:00:33.831599Z",
       "deleted_at": {
        "time": "0001-01-01T00:00:00Z",
        "valid": false
       },
       "authority": "risks",
       "name": "GenerateReport"
      },
      {
       "id": 4,
       "created_at": "2026-11-24T11:00:33.831599Z",
       "updated_at": "2026-11-24T11:00:33.831599Z",
       "deleted_at": {
        "time": "0001-01-01T00:00:00Z",
        "valid": false
       },
       "authority": "risks",
       "name": "ManageRisks"
      },
      {
       "id": 5,
       "created_at": "2026-11-24T11:00:33.831599Z",
       "updated_at": "2026-11-24T11:00:33.831599Z",
       "deleted_at": {
        "time": "0001-01-01T00:00:00Z",
        "valid": false
       },
       "authority": "audit_log",
       "name": "Read"
      },
      {
       "id": 6,
       "created_at": "2026-11-24T11:00:33.831599Z",
       "updated_at": "2026-11-24T11:00:33.831599Z",
       "deleted_at": {
        "time": "0001-01-01T00:00:00Z",
        "valid": false
       },
       "authority": "auth",
       "name": "AcceptEULA"
      },
      {
       "id": 7,
       "created_at": "2026-11-24T11:00:33.831599Z",
       "updated_at": "2026-11-24T11:00:33.831599Z",
       "deleted_at": {
        "time": "0001-01-01T00:00:00Z",
        "valid": false
       },
       "authority": "auth",
       "name": "CreateToken"
      },
      {
       "id": 8,
       "created_at": "2026-11-24T11:00:33.831599Z",
       "updated_at": "2026-11-24T11:00:33.831599Z",
       "deleted_at": {
        "time": "0001-01-01T00:00:00Z",
        "valid": false
       },
       "authority": "auth",
       "name": "ManageProviders"
      },
      {
       "id": 9,
       "created_at": "2026-11-24T11:00:33.831599Z",
       "updated_at": "2026-11-24T11:00:33.831599Z",
       "deleted_at": {
        "time": "0001-01-01T00:00:00Z",
        "valid": false
       },
       "authority": "auth",
       "name": "ManageSelf"
      },
      {
       "id": 10,
       "created_at": "2026-11-24T11:00:33.831599Z",
       "updated_at": "2026-11-24T11:00:33.831599Z",
       "deleted_at": {
        "time": "0001-01-01T00:00:00Z",
        "valid": false
       },
       "authority": "auth",
       "name": "ManageUsers"
      },
      {
       "id": 11,
       "created_at": "2026-11-24T11:00:33.831599Z",
       "updated_at": "2026-11-24T11:00:33.831599Z",
       "deleted_at": {
        "time": "0001-01-01T00:00:00Z",
        "valid": false
       },
       "authority": "auth",
       "name": "ReadUsers"
      },
      {
       "id": 12,
       "created_at": "2026-11-24T11:00:33.831599Z",
       "updated_at": "2026-11-24T11:00:33.831599Z",
       "deleted_at": {
        "time": "0001-01-01T00:00:00Z",
        "valid": false
       },
       "authority": "clients",
       "name": "Manage"
      },
      {
       "id": 13,
       "created_at": "2026-11-24T11:00:33.831599Z",
       "updated_at": "2026-11-24T11:00:33.831599Z",
       "deleted_at": {
        "time": "0001-01-01T00:00:00Z",
        "valid": false
       },
       "authority": "clients",
       "name": "Read"
      },
      {
       "id": 14,
       "created_at": "2026-11-24T11:00:33.831599Z",
       "updated_at": "2026-11-24T11:00:33.831599Z",
       "deleted_at": {
        "time": "0001-01-01T00:00:00Z",
        "valid": false
       },
       "authority": "clients",
       "name": "Tasking"
      },
      {
       "id": 15,
       "created_at": "2026-11-24T11:00:33.831599Z",
       "updated_at": "2026-11-24T11:00:33.831599Z",
       "deleted_at": {
        "time": "0001-01-01T00:00:00Z",
        "valid": false
       },
       "authority": "collection",
       "name": "ManageJobs"
      },
      {
       "id": 16,
       "created_at": "2026-11-24T11:00:33.831599Z",
       "updated_at": "2026-11-24T11:00:33.831599Z",
       "deleted_at": {
        "time": "0001-01-01T00:00:00Z",
        "valid": false
       },
       "authority": "graphdb",
       "name": "Ingest"
      },
      {
       "id": 17,
       "created_at": "2026-11-24T11:00:33.831599Z",
       "updated_at": "2026-11-24T11:00:33.831599Z",
       "deleted_at": {
        "time": "0001-01-01T00:00:00Z",
        "valid": false
       },
       "authority": "graphdb",
       "name": "Mutate"
      },
      {
       "id": 18,
       "created_at": "2026-11-24T11:00:33.831599Z",
       "updated_at": "2026-11-24T11:00:33.831599Z",
       "deleted_at": {
        "time": "0001-01-01T00:00:00Z",
        "valid": false
       },
       "authority": "graphdb",
       "name": "Read"
      },
      {
       "id": 19,
       "created_at": "2026-11-24T11:00:33.831599Z",
       "updated_at": "2026-11-24T11:00:33.831599Z",
       "deleted_at": {
        "time": "0001-01-01T00:00:00Z",
        "valid": false
       },
       "authority": "graphdb",
       "name": "Write"
      },
      {
       "id": 20,
       "created_at": "2026-11-24T11:00:33.831599Z",
       "updated_at": "2026-11-24T11:00:33.831599Z",
       "deleted_at": {
        "time": "0001-01-01T00:00:00Z",
        "valid": false
       },
       "authority": "saved_queries",
       "name": "Read"
      },
      {
       "id": 21,
       "created_at": "2026-11-24T11:00:33.831599Z",
       "updated_at": "2026-11-24T11:00:33.831599Z",
       "deleted_at": {
        "time": "0001-01-01T00:00:00Z",
        "valid": false
       },
       "authority": "saved_queries",
       "name": "Write"
      },
      {
       "id": 22,
       "created_at": "2026-11-24T11:00:33.831599Z",
       "updated_at": "2026-11-24T11:00:33.831599Z",
       "deleted_at": {
        "time": "0001-01-01T00:00:00Z",
        "valid": false
       },
       "authority": "db",
       "name": "Wipe"
      }
     ]
    }
   ],
   "first_name": {
    "string": "",
    "valid": false
   },
   "last_name": {
    "string": "",
    "valid": false
   },
   "email_address": {
    "string": "admin@example.com",
    "valid": true
   },
   "principal_name": "admin",
   "last_login": "0001-01-01T00:00:00Z",
   "is_disabled": false,
   "eula_accepted": false
  }
 },
 "get /api/v2/platform/{platform_id}/data-quality-stats 200": {
  "start": "2026-10-25T11:00:47.523265Z",
  "end": "2026-11-24T11:00:47.523265Z",
  "count": 1,
  "skip": 0,
  "limit": 1,
  "data": [
   {
    "id": 1,
    "created_at": "2026-11-24T11:00:35.665869Z",
    "updated_at": "2026-11-24T11:00:35.665869Z",
    "deleted_at": {
     "time": "0001-01-01T00:00:00Z",
     "valid": false
    },
    "domains": 1,
    "users": 14,
    "groups": 57,
    "computers": 2,
    "ous": 1,
    "containers": 207,
    "gpos": 2,
    "aiacas": 1,
    "rootcas": 1,
    "enterprisecas": 1,
    "ntauthstores": 1,
    "certtemplates": 34,
    "acls": 2132,
    "sessions": 1,
    "relationships": 2562,
    "session_completeness": 50,
    "local_group_completeness": 0,
    "issuancepolicies": 3,
    "run_id": "1be68211-9b3c-4eaa-a223-3a823b777337"
   }
  ]
 },
 "get /api/v2/ad-domains/{domain_id}/data-quality-stats 200": {
  "start": "2026-10-25T11:00:47.525026Z",
  "end": "2026-11-24T11:00:47.525026Z",
  "count": 1,
  "skip": 0,
  "limit": 1,
  "data": [
   {
    "id": 1,
    "created_at": "2026-11-24T11:00:35.665869Z",
    "updated_at": "2026-11-24T11:00:35.665869Z",
    "deleted_at": {
     "time": "0001-01-01T00:00:00Z",
     "valid": false
    },
    "domain_sid": "S-1-5-21-909015691-3030120388-2582151266",
    "users": 14,
    "groups": 57,
    "computers": 2,
    "ous": 1,
    "containers": 207,
    "gpos": 2,
    "aiacas": 1,
    "rootcas": 1,
    "enterprisecas": 1,
    "ntauthstores": 1,
    "certtemplates": 34,
    "issuancepolicies": 0,
    "acls": 2114,
    "sessions": 1,
    "relationships": 2541,
    "session_completeness": 50,
    "local_group_completeness": 0,
    "run_id": "1be68211-9b3c-4eaa-a223-3a823b777337"
   }
  ]
 },
 "get /api/v2/certtemplates/{object_id} 200": {
  "data": {
   "kind": "CertTemplate",
   "kinds": [
    "CertTemplate",
    "Base"
   ],
   "props": {
    "domain": "ESC1.LOCAL",
    "name": "ESC1@ESC1.LOCAL",
    "distinguishedname": "CN=ESC1,CN=CERTIFICATE TEMPLATES,CN=PUBLIC KEY SERVICES,CN=SERVICES,CN=CONFIGURATION,DC=ESC1,DC=LOCAL",
    "domainsid": "S-1-5-21-909015691-3030120388-2582151266",
    "whencreated": 1665175875,
    "validityperiod": "1 year",
    "renewalperiod": "6 weeks",
    "schemaversion": 2,
    "displayname": "ESC1",
    "oid": "1.3.6.1.4.1.311.21.8.12059088.7148202.5130407.12905872.6174753.77.13327915.10315889",
    "enrollmentflag": "INCLUDE_SYMMETRIC_ALGORITHMS, PUBLISH_TO_DS",
    "requiresmanagerapproval": false,
    "nosecurityextension": false,
    "certificatenameflag": "ENROLLEE_SUPPLIES_SUBJECT",
    "enrolleesuppliessubject": true,
    "subjectaltrequireupn": false,
    "ekus": [
     "1.3.6.1.5.5.7.3.2",
     "1.3.6.1.5.5.7.3.4",
     "1.3.6.1.4.1.311.10.3.4"
    ],
    "certificateapplicationpolicy": [
     "1.3.6.1.5.5.7.3.2",
     "1.3.6.1.5.5.7.3.4",
     "1.3.6.1.4.1.311.10.3.4"
    ],
    "authorizedsignatures": 0,
    "applicationpolicies": [],
    "issuancepolicies": [],
    "effectiveekus": [
     "1.3.6.1.5.5.7.3.2",
     "1.3.6.1.5.5.7.3.4",
     "1.3.6.1.4.1.311.10.3.4"
    ],
    "authenticationenabled": true,
    "ownersid": "S-1-5-21-909015691-3030120388-2582151266-500",
    "objectid": "DEBC8BEB-40AF-48B5-940F-AAFAFE961B26"
   },
   "controllers": 10
  }
 },
 "get /api/v2/certtemplates/{object_id}/controllers 200": {
  "count": 10,
  "skip": 0,
  "limit": 2,
  "data": [
   {
    "objectID": "S-1-5-21-909015691-3030120388-2582151266-1112",
    "name": "DAVIS@ESC1.LOCAL",
    "label": "User",
    "kinds": [
     "User",
     "Base"
    ]
   },
   {
    "objectID": "S-1-5-21-909015691-3030120388-2582151266-512",
    "name": "DOMAIN ADMINS@ESC1.LOCAL",
    "label": "Group",
    "kinds": [
     "Group",
     "Base"
    ]
   }
  ]
 },
 "get /api/v2/asset-group-tags 200": {
  "data": {
   "tags": [
    {
     "id": 1,
     "type": 1,
     "kind_id": 1,
     "name": "Tier Zero",
     "description": "Tier Zero",
     "created_at": "2026-11-24T11:00:33.892000Z",
     "created_by": "SYSTEM",
     "updated_at": "2026-11-24T11:00:33.892000Z",
     "updated_by": "SYSTEM",
     "deleted_at": {
      "time": "0001-01-01T00:00:00Z",
      "valid": false
     },
     "deleted_by": null,
     "position": 1,
     "require_certify": false,
     "analysis_enabled": true,
     "glyph": "gem"
    },
    {
     "id": 2,
     "type": 3,
     "kind_id": 2,
     "name": "Owned",
     "description": "Owned",
     "created_at": "2026-11-24T11:00:33.892000Z",
     "created_by": "SYSTEM",
     "updated_at": "2026-11-24T11:00:33.892000Z",
     "updated_by": "SYSTEM",
     "deleted_at": {
      "time": "0001-01-01T00:00:00Z",
      "valid": false
     },
     "deleted_by": null,
     "position": null,
     "require_certify": null,
     "analysis_enabled": null,
     "glyph": "skull"
    }
   ]
  }
 },
 "post /api/v2/asset-group-tags/{asset_group_tag_id}/selectors 201": {
  "data": {
   "id": 1,
   "asset_group_tag_id": 1,
   "created_at": "2026-11-24T11:00:47.649838Z",
   "created_by": "810712b6-0ef2-4f49-ba0c-b6ec9dae1796",
   "updated_at": "2026-11-24T11:00:47.649838Z",
   "updated_by": "810712b6-0ef2-4f49-ba0c-b6ec9dae1796",
   "disabled_at": null,
   "disabled_by": null,
   "name": "Domain Admins",
   "description": "",
   "auto_certify": 0,
   "is_default": false,
   "allow_disable": true,
   "expansion": 2,
   "seeds": [
    {
     "selector_id": 1,
     "type": 1,
     "value": "S-1-5-21-909015691-3030120388-2582151266-512"
    }
   ]
  }
 },
 "get /api/v2/asset-group-tags/{asset_group_tag_id}/selectors/{selector_id} 200": {
  "data": {
   "selector": {
    "id": 1,
    "asset_group_tag_id": 1,
    "created_at": "2026-11-24T11:00:47.649838Z",
    "created_by": "admin@example.com",
    "updated_at": "2026-11-24T11:00:47.649838Z",
    "updated_by": "admin@example.com",
    "disabled_at": null,
    "disabled_by": null,
    "name": "Domain Admins",
    "description": "",
    "auto_certify": 0,
    "is_default": false,
    "allow_disable": true,
    "expansion": 2,
    "seeds": [
     {
      "selector_id": 1,
      "type": 1,
      "value": "S-1-5-21-909015691-3030120388-2582151266-512"
     }
    ]
   }
  }
 },
 "get /api/v2/asset-group-tags/{asset_group_tag_id}/members 200": {
  "count": 2,
  "skip": 0,
  "limit": 2,
  "data": {
   "members": [
    {
     "id": 3,
     "object_id": "S-1-5-21-909015691-3030120388-2582151266-512",
     "environment_id": "S-1-5-21-909015691-3030120388-2582151266",
     "primary_kind": "Group",
     "name": "DOMAIN ADMINS@ESC1.LOCAL",
     "properties": {
      "domain": "ESC1.LOCAL",
      "name": "DOMAIN ADMINS@ESC1.LOCAL",
      "distinguishedname": "CN=DOMAIN ADMINS,CN=USERS,DC=ESC1,DC=LOCAL",
      "domainsid": "S-1-5-21-909015691-3030120388-2582151266",
      "highvalue": true,
      "samaccountname": "Domain Admins",
      "description": "Designated administrators of the domain",
      "whencreated": 1664419087,
      "admincount": true,
      "ownersid": "S-1-5-21-909015691-3030120388-2582151266-512",
      "objectid": "S-1-5-21-909015691-3030120388-2582151266-512"
     },
     "source": 1,
     "asset_group_tag_id": 1
    },
    {
     "id": 236,
     "object_id": "S-1-5-21-909015691-3030120388-2582151266-500",
     "environment_id": "S-1-5-21-909015691-3030120388-2582151266",
     "primary_kind": "User",
     "name": "RESEARCHER@ESC1.LOCAL",
     "properties": {
      "domain": "ESC1.LOCAL",
      "name": "RESEARCHER@ESC1.LOCAL",
      "distinguishedname": "CN=RESEARCHER,CN=USERS,DC=ESC1,DC=LOCAL",
      "domainsid": "S-1-5-21-909015691-3030120388-2582151266",
      "highvalue": false,
      "samaccountname": "Researcher",
      "description": "Built-in account for administering the computer/domain",
      "whencreated": 1664419051,
      "sensitive": false,
      "dontreqpreauth": false,
      "passwordnotreqd": false,
      "unconstraineddelegation": false,
      "pwdneverexpires": true,
      "enabled": true,
      "trustedtoauth": false,
      "lastlogon": 1701284139,
      "lastlogontimestamp": 1701284136,
      "pwdlastset": 1668103669,
      "serviceprincipalnames": [],
      "hasspn": false,
      "admincount": true,
      "sidhistory": [],
      "ownersid": "S-1-5-21-909015691-3030120388-2582151266-512",
      "objectid": "S-1-5-21-909015691-3030120388-2582151266-500"
     },
     "source": 2,
     "asset_group_tag_id": 1
    }
   ]
  }
 },
 "get /api/v2/domains/{object_id} 200": {
  "data": {
   "kind": "Domain",
   "kinds": [
    "Domain",
    "Base"
   ],
   "props": {
    "collected": true,
    "objectid": "S-1-5-21-909015691-3030120388-2582151266",
    "domain": "ESC1.LOCAL",
    "name": "ESC1.LOCAL",
    "distinguishedname": "DC=ESC1,DC=LOCAL",
    "domainsid": "S-1-5-21-909015691-3030120388-2582151266",
    "highvalue": true,
    "whencreated": 1664419044,
    "functionallevel": "2016",
    "ownersid": "ESC1.LOCAL-S-1-5-32-544"
   },
   "users": 14,
   "groups": 57,
   "computers": 2,
   "ous": 1,
   "gpos": 2,
   "foreignUsers": 0,
   "foreignGroups": 0,
   "foreignAdmins": 0,
   "foreignGPOControllers": 0,
   "inboundTrusts": 0,
   "outboundTrusts": 0,
   "controllers": 8,
   "dcsyncers": 0,
   "linkedgpos": 1,
   "adcs-escalations": 0
  }
 },
 "get /api/v2/groups/{object_id}/members 200": {
  "count": 1,
  "skip": 0,
  "limit": 2,
  "data": [
   {
    "objectID": "S-1-5-21-909015691-3030120388-2582151266-500",
    "name": "RESEARCHER@ESC1.LOCAL",
    "label": "User",
    "kinds": [
     "User",
     "Base",
     "Tag_Tier_Zero"
    ]
   }
  ]
 },
 "get /api/v2/search 200": {
  "data": [
   {
    "objectid": "S-1-5-21-909015691-3030120388-2582151266-1116",
    "type": "User",
    "name": "ADMINISTRATOR@ESC1.LOCAL",
    "distinguishedname": "CN=ADMINISTRATOR,CN=USERS,DC=ESC1,DC=LOCAL",
    "system_tags": ""
   },
   {
    "objectid": "251BB763-E8FE-4B7A-9E61-1EDE247847E1",
    "type": "CertTemplate",
    "name": "ADMINISTRATOR@ESC1.LOCAL",
    "distinguishedname": "CN=ADMINISTRATOR,CN=CERTIFICATE TEMPLATES,CN=PUBLIC KEY SERVICES,CN=SERVICES,CN=CONFIGURATION,DC=ESC1,DC=LOCAL",
    "system_tags": ""
   }
  ]
 },
 "get /api/v2/available-domains 200": {
  "data": [
   {
    "type": "active-directory",
    "name": "ESC1.LOCAL",
    "id": "S-1-5-21-909015691-3030120388-2582151266",
    "collected": true
   }
  ]
 },
 "post /api/v2/graphs/cypher 200": {
  "data": {
   "nodes": {
    "3": {
     "label": "DOMAIN ADMINS@ESC1.LOCAL",
     "kind": "Group",
     "kinds": [
      "Group",
      "Base",
      "Tag_Tier_Zero"
     ],
     "objectId": "S-1-5-21-909015691-3030120388-2582151266-512",
     "isTierZero": true,
     "isOwnedObject": false,
     "lastSeen": "2026-11-24T11:00:35.026040Z"
    }
   },
   "edges": []
  }
 },
 "post /api/v2/clients 200": {
  "data": {
   "id": "1bfbac61-78d0-49e6-9119-8fccd91a61e4",
   "name": "dc01-collector",
   "type": "sharphound",
   "domain_controller": "",
   "ip_address": "",
   "hostname": "",
   "configured_user": "",
   "user_sid": "",
   "version": "",
   "last_checkin": null,
   "current_job_id": null,
   "current_job": null,
   "current_task_id": null,
   "current_task": null,
   "completed_job_count": 0,
   "completed_task_count": 0,
   "events": [],
   "token": null,
   "issuer_address": "",
   "issuer_address_override": "",
   "created_at": "2026-11-24T11:00:48.897761Z",
   "updated_at": "2026-11-24T11:00:48.897761Z",
   "deleted_at": {
    "time": "0001-01-01T00:00:00Z",
    "valid": false
   }
  }
 },
 "post /api/v2/events 200": {
  "data": {
   "id": 1,
   "client_id": "1bfbac61-78d0-49e6-9119-8fccd91a61e4",
   "title": "nightly",
   "rrule": "DTSTART:20261124T110049Z\nRRULE:FREQ=DAILY",
   "session_collection": false,
   "local_group_collection": false,
   "ad_structure_collection": true,
   "cert_services_collection": false,
   "ca_registry_collection": false,
   "dc_registry_collection": false,
   "all_trusted_domains": false,
   "ous": [
    {
     "objectid": "1AEEE963-F4C8-49DA-BBE6-A6107F42CAF0",
     "name": "DOMAIN CONTROLLERS@ESC1.LOCAL",
     "exists": true,
     "distinguishedname": "OU=DOMAIN CONTROLLERS,DC=ESC1,DC=LOCAL",
     "type": "OU"
    }
   ],
   "domains": [
    {
     "objectid": "S-1-5-21-909015691-3030120388-2582151266",
     "name": "ESC1.LOCAL",
     "exists": true,
     "type": "Domain"
    }
   ],
   "created_at": "2026-11-24T11:00:49.248042Z",
   "updated_at": "2026-11-24T11:00:49.248042Z",
   "deleted_at": {
    "time": "0001-01-01T00:00:00Z",
    "valid": false
   }
  }
 },
 "get /api/v2/events/{event_id} 200": {
  "data": {
   "id": 1,
   "client_id": "1bfbac61-78d0-49e6-9119-8fccd91a61e4",
   "title": "nightly",
   "rrule": "DTSTART:20261124T110049Z\nRRULE:FREQ=DAILY",
   "session_collection": false,
   "local_group_collection": false,
   "ad_structure_collection": true,
   "cert_services_collection": false,
   "ca_registry_collection": false,
   "dc_registry_collection": false,
   "all_trusted_domains": false,
   "ous": [
    {
     "objectid": "1AEEE963-F4C8-49DA-BBE6-A6107F42CAF0",
     "name": "DOMAIN CONTROLLERS@ESC1.LOCAL",
     "exists": true,
     "distinguishedname": "OU=DOMAIN CONTROLLERS,DC=ESC1,DC=LOCAL",
     "type": "OU"
    }
   ],
   "domains": [
    {
     "objectid": "S-1-5-21-909015691-3030120388-2582151266",
     "name": "ESC1.LOCAL",
     "exists": true,
     "type": "Domain"
    }
   ],
   "created_at": "2026-11-24T11:00:49.248042Z",
   "updated_at": "2026-11-24T11:00:49.248042Z",
   "deleted_at": {
    "time": "0001-01-01T00:00:00Z",
    "valid": false
   }
  }
 },
 "get /api/v2/clients/{client_id} 200": {
  "data": {
   "id": "1bfbac61-78d0-49e6-9119-8fccd91a61e4",
   "name": "dc01-collector",
   "type": "sharphound",
   "domain_controller": "",
   "ip_address": "",
   "hostname": "",
   "configured_user": "",
   "user_sid": "",
   "version": "",
   "last_checkin": null,
   "current_job_id": null,
   "current_job": null,
   "current_task_id": null,
   "current_task": null,
   "completed_job_count": 0,
   "completed_task_count": 0,
   "events": [
    {
     "id": 1,
     "client_id": "1bfbac61-78d0-49e6-9119-8fccd91a61e4",
     "title": "nightly",
     "rrule": "DTSTART:20261124T110049Z\nRRULE:FREQ=DAILY",
     "session_collection": false,
     "local_group_collection": false,
     "ad_structure_collection": true,
     "cert_services_collection": false,
     "ca_registry_collection": false,
     "dc_registry_collection": false,
     "all_trusted_domains": false,
     "ous": [
      {
       "objectid": "1AEEE963-F4C8-49DA-BBE6-A6107F42CAF0",
       "name": "DOMAIN CONTROLLERS@ESC1.LOCAL",
       "exists": true,
       "distinguishedname": "OU=DOMAIN CONTROLLERS,DC=ESC1,DC=LOCAL",
       "type": "OU"
      }
     ],
     "domains": [
      {
       "objectid": "S-1-5-21-909015691-3030120388-2582151266",
       "name": "ESC1.LOCAL",
       "exists": true,
       "type": "Domain"
      }
     ],
     "created_at": "2026-11-24T11:00:49.248042Z",
     "updated_at": "2026-11-24T11:00:49.248042Z",
     "deleted_at": {
      "time": "0001-01-01T00:00:00Z",
      "valid": false
     }
    }
   ],
   "token": null,
   "issuer_address": "",
   "issuer_address_override": "",
   "created_at": "2026-11-24T11:00:48.897761Z",
   "updated_at": "2026-11-24T11:00:48.897761Z",
   "deleted_at": {
    "time": "0001-01-01T00:00:00Z",
    "valid": false
   }
  }
 },
 "get /api/v2/jobs/available 200": {
  "data": [
   {
    "id": 1,
    "client_id": "1bfbac61-78d0-49e6-9119-8fccd91a61e4",
    "client_name": "dc01-collector",
    "event_id": {
     "int32": 1,
     "valid": true
    },
    "event_title": "nightly",
    "execution_time": "2026-11-24T11:00:49.000000Z",
    "start_time": "0001-01-01T00:00:00Z",
    "end_time": "0001-01-01T00:00:00Z",
    "status": 0,
    "status_message": "",
    "session_collection": false,
    "local_group_collection": false,
    "ad_structure_collection": true,
    "cert_services_collection": false,
    "ca_registry_collection": false,
    "dc_registry_collection": false,
    "all_trusted_domains": false,
    "domain_controller": "",
    "ous": [
     {
      "objectid": "1AEEE963-F4C8-49DA-BBE6-A6107F42CAF0",
      "name": "DOMAIN CONTROLLERS@ESC1.LOCAL",
      "exists": true,
      "distinguishedname": "OU=DOMAIN CONTROLLERS,DC=ESC1,DC=LOCAL",
      "type": "OU"
     }
    ],
    "domains": [
     {
      "objectid": "S-1-5-21-909015691-3030120388-2582151266",
      "name": "ESC1.LOCAL",
      "exists": true,
      "type": "Domain"
     }
    ],
    "domain_results": []
   }
  ]
 },
 "post /api/v2/sso-providers/oidc 200": {
  "data": {
   "id": 1,
   "created_at": "2026-11-24T11:00:50.128928Z",
   "updated_at": "2026-11-24T11:00:50.128928Z",
   "deleted_at": {
    "time": "0001-01-01T00:00:00Z",
    "valid": false
   },
   "client_id": "scent",
   "issuer": "https://example.okta.com",
   "sso_provider_id": 1
  }
 },
 "get /api/v2/sso-providers 200": {
  "data": [
   {
    "id": 1,
    "name": "Okta",
    "slug": "okta",
    "type": "OIDC",
    "login_uri": "http://127.0.0.1:8080/api/v2/sso/okta/login",
    "callback_uri": "http://127.0.0.1:8080/api/v2/sso/okta/callback",
    "created_at": "2026-11-24T11:00:50.128928Z",
    "updated_at": "2026-11-24T11:00:50.128928Z",
    "details": {
     "id": 1,
     "created_at": "2026-11-24T11:00:50.128928Z",
     "updated_at": "2026-11-24T11:00:50.128928Z",
     "deleted_at": {
      "time": "0001-01-01T00:00:00Z",
      "valid": false
     },
     "client_id": "scent",
     "issuer": "https://example.okta.com",
     "sso_provider_id": 1
    },
    "config": {
     "auto_provision": {
      "enabled": false,
      "default_role_id": 0,
      "role_provision": false
     }
    }
   }
  ]
 },
 "delete /api/v2/sso-providers/{sso_provider_id} 200": {
  "data": {
   "affected_users": []
  }
 },
 "post /api/v2/file-upload/start 201": {
  "data": {
   "id": 1,
   "user_id": "810712b6-0ef2-4f49-ba0c-b6ec9dae1796",
   "user_email_address": "admin@example.com",
   "status": 1,
   "status_message": "",
   "start_time": "2026-11-24T11:00:50.279674Z",
   "end_time": "0001-01-01T00:00:00Z",
   "last_ingest": "0001-01-01T00:00:00Z",
   "total_files": 0,
   "failed_files": 0,
   "created_at": "2026-11-24T11:00:50.279674Z",
   "updated_at": "2026-11-24T11:00:50.279674Z",
   "deleted_at": {
    "time": "0001-01-01T00:00:00Z",
    "valid": false
   }
  }
 },
 "get /api/v2/file-upload 200": {
  "count": 1,
  "skip": 0,
  "limit": 1,
  "data": [
   {
    "id": 1,
    "user_id": "810712b6-0ef2-4f49-ba0c-b6ec9dae1796",
    "user_email_address": "admin@example.com",
    "status": 1,
    "status_message": "",
    "start_time": "2026-11-24T11:00:50.279674Z",
    "end_time": "0001-01-01T00:00:00Z",
    "last_ingest": "0001-01-01T00:00:00Z",
    "total_files": 0,
    "failed_files": 0,
    "created_at": "2026-11-24T11:00:50.279674Z",
    "updated_at": "2026-11-24T11:00:50.279674Z",
    "deleted_at": {
     "time": "0001-01-01T00:00:00Z",
     "valid": false
    }
   }
  ]
 },
 "get /api/v2/file-upload/accepted-types 200": {
  "data": [
   "application/json",
   "application/zip",
   "application/x-zip-compressed",
   "application/zip-compressed"
  ]
 }
};
