"""The private car (motor) insurance wording, versions 2024 and 2025."""

from __future__ import annotations

from ragsweep.data.samplegen import shared
from ragsweep.data.samplegen.spec import Ask, ClauseDef, Endorsement, PartDef, ProductDef

DEFINITIONS = PartDef(
    "2",
    "Definitions",
    "definitions",
    (
        ClauseDef(
            "def.accessories",
            "Accessories",
            "accessories",
            (
                "Accessories means parts or products designed to be fitted to the vehicle, such"
                " as roof bars, tow bars and alloy wheels, including audio, navigation and"
                " entertainment equipment permanently fitted to it.",
                "Accessories do not include mobile phones, portable satellite navigation units"
                " or dash cameras that can be removed without tools.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Is my <dash cam|dashcam> <counted as|treated as> an"
                        " <accessory|=accessories>"
                        " of the car?",
                        "Do <roof bars|alloy wheels> count as <part of the car|=accessories>?",
                    ),
                    supports=("lim.audio",),
                ),
            ),
        ),
        ClauseDef(
            "def.repairer",
            "Approved repairer",
            "an approved repairer",
            (
                "Approved repairer means a repairer in our network that we have appointed to"
                " repair vehicles on our behalf.",
                "Repairs carried out by an approved repairer are guaranteed for as long as you own"
                " the vehicle.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "What's an <=approved repairer|approved garage> and <why does it"
                        " matter|do I have to use one>?",
                    ),
                    supports=("clm.repairs",),
                ),
            ),
        ),
        ClauseDef(
            "def.vehicle",
            "Vehicle",
            "the vehicle",
            (
                "Vehicle means the private motor car described in your schedule and on your"
                " certificate of motor insurance, together with its accessories and spare parts.",
                "It includes a replacement vehicle we have agreed to insure, but not a courtesy"
                " car or a hire car.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "<Does|Would> the <courtesy car|hire car> count as <my car|=the vehicle>"
                        " under"
                        " the policy?",
                        "What <vehicle|car> exactly does my <car insurance|motor policy> cover?",
                    ),
                ),
            ),
        ),
        ClauseDef(
            "def.certificate",
            "Certificate of motor insurance",
            "the certificate of motor insurance",
            (
                "Certificate of motor insurance means the document that proves you have the"
                " insurance required by law.",
                "It shows the vehicle, who may drive it and the purposes for which it may be"
                " used, and it forms part of your contract.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "What's the <certificate|insurance certificate> for, and is it the same as"
                        " my schedule?",
                    ),
                ),
            ),
        ),
        ClauseDef(
            "def.charging",
            "Charging equipment",
            "charging equipment",
            (
                "Charging equipment means the cables, portable chargers and wall boxes used to"
                " charge an electric or plug-in hybrid vehicle.",
                "A wall box is included only while it is fixed at your home address.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Does my <home charger|wall box> <count as|come under> <charging"
                        " equipment|=charging equipment>?",
                    ),
                    supports=("cov.charging",),
                ),
            ),
        ),
        shared.DEF_EXCESS,
        ClauseDef(
            "def.keys",
            "Keys",
            "the keys",
            (
                "Keys means the keys, key cards, remote fobs and keyless entry devices supplied"
                " with the vehicle or replaced since, including any device or app that allows the"
                " vehicle to be unlocked or started.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    ("Does <the app|my phone app> that unlocks the car count as <a key|=keys>?",),
                    supports=("exc.keys",),
                ),
            ),
        ),
        ClauseDef(
            "def.market_value",
            "Market value",
            "market value",
            (
                "Market value means the cost of replacing the vehicle with one of the same make,"
                " model, age, mileage and condition immediately before the loss, based on"
                " recognised trade guides.",
                "It is not the price you paid for the vehicle or the amount you owe on any"
                " finance agreement.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "How do you <work out|decide> what my car is worth <if it's written"
                        " off|after a write-off>?",
                        "Is <=market value|the value of my car> what I paid for it?",
                    ),
                    supports=("clm.total_loss",),
                ),
            ),
        ),
        ClauseDef(
            "def.named_driver",
            "Named driver",
            "a named driver",
            (
                "Named driver means a person shown on your certificate of motor insurance as"
                " entitled to drive the vehicle.",
                "A named driver is covered only while driving the vehicle with your permission"
                " and within the uses allowed by the certificate.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "What's the difference between <me|the policyholder> and a <named"
                        " driver|=named driver>?",
                        "Can my <wife|son> drive the car if they're a named driver?",
                    ),
                ),
            ),
        ),
        shared.DEF_PERIOD,
        ClauseDef(
            "def.belongings",
            "Personal belongings",
            "personal belongings",
            (
                "Personal belongings means clothing and other personal items in or on the"
                " vehicle, belonging to you or your passengers.",
                "Personal belongings do not include money, tickets, documents, mobile phones,"
                " tools, goods carried for business, or items covered under another policy.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Do <my work tools|my phone> count as personal <belongings|stuff> in the"
                        " car?",
                        "What <counts as|do you mean by> <=personal belongings|my stuff> in the"
                        " car?",
                    ),
                    supports=("cov.belongings",),
                ),
            ),
        ),
        ClauseDef(
            "def.use",
            "Social, domestic and pleasure use",
            "social, domestic and pleasure use",
            (
                "Social, domestic and pleasure use means driving for private purposes, such as"
                " shopping, visiting friends and going on holiday.",
                "Commuting to a single permanent place of work is covered only if your"
                " certificate says so, and business use only if it is shown on the certificate.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Does <driving to work|my commute> <count as|fall under> social and"
                        " <domestic|pleasure> use?",
                        "What does <social, domestic and pleasure|SD&P> mean on my <car"
                        " insurance|certificate>?",
                    ),
                    supports=("exc.use",),
                ),
            ),
        ),
        ClauseDef(
            "def.territorial",
            "Territorial limits",
            "the territorial limits",
            (
                "Territorial limits means Great Britain, Northern Ireland, the Isle of Man and the"
                " Channel Islands, and travel between them by sea or rail.",
                "Driving abroad is covered only as set out in clause {ref[cov.europe]}.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Does <the UK|my cover area> include <the Isle of Man|Jersey|Northern"
                        " Ireland>?",
                    ),
                    supports=("cov.europe",),
                ),
            ),
        ),
        ClauseDef(
            "def.total_loss",
            "Total loss",
            "a total loss",
            (
                "Total loss means the vehicle has been stolen and not recovered within 28 days,"
                " or it is damaged and we decide that it is not economical to repair.",
                "This is sometimes called a write-off.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "When do you <decide|say> a car is <written off|a write-off>?",
                        "How long before a stolen car <counts as|is treated as> a <write-off|=total"
                        " loss>?",
                        "How long does a stolen car have to be missing before <it's written"
                        " off|you pay out>?",
                    ),
                    supports=("clm.total_loss",),
                ),
            ),
        ),
        ClauseDef(
            "def.young_driver",
            "Young or inexperienced driver",
            "a young or inexperienced driver",
            (
                "Young or inexperienced driver means a driver under 25 years old, or a driver who"
                " has held a full driving licence for less than two years.",
            ),
            fill=1,
            asks=(
                Ask(
                    "definitions",
                    (
                        "Who <counts as|is classed as> a young or <new|inexperienced> driver?",
                        "I'm 27 but only passed my test last year, <am I|do I count as> an"
                        " inexperienced driver?",
                    ),
                    supports=("lim.young_excess",),
                ),
            ),
        ),
    ),
)

COVER = PartDef(
    "3",
    "What is covered",
    "cover",
    (
        ClauseDef(
            "cov.damage",
            "Damage to your vehicle",
            "the vehicle",
            (
                "If your schedule shows comprehensive cover, we will pay for loss of or damage to"
                " the vehicle and its accessories caused by an accident, malicious damage or"
                " vandalism, storm, flood or falling objects.",
                "We will repair the vehicle, replace it or pay you the cost of the loss or"
                " damage, up to the limit in clause {ref[lim.vehicle]}.",
                "If the vehicle cannot be driven, we will pay the reasonable cost of moving it to"
                " the nearest suitable repairer and delivering it to your home after repair.",
            ),
            fill=7,
            lay="the damage to your car section",
        ),
        ClauseDef(
            "cov.fire_theft",
            "Fire and theft",
            "fire and theft",
            (
                "We will pay for loss of or damage to the vehicle caused by fire, lightning,"
                " explosion, theft or attempted theft.",
                "If the vehicle is stolen and not recovered, we will settle the claim as a total"
                " loss; see clause {ref[clm.total_loss]}.",
                "The theft excess in clause {ref[lim.theft_excess]} applies.",
            ),
            fill=7,
            lay="the fire and theft section",
        ),
        ClauseDef(
            "cov.windscreen",
            "Windscreen and windows",
            "the windscreen and windows",
            (
                "We will pay to repair or replace broken glass in the windscreen, windows or"
                " sunroof of the vehicle, and to repair any scratching to the bodywork caused by"
                " the broken glass.",
                "A claim for glass only does not affect your no claim discount.",
                "The windscreen excesses in clause {ref[lim.windscreen]} apply.",
            ),
            fill=6,
            lay="the windscreen cover",
        ),
        ClauseDef(
            "cov.belongings",
            "Personal belongings",
            "personal belongings",
            (
                "We will pay for loss of or damage to personal belongings in or on the vehicle"
                " caused by an accident, fire or theft, up to the limit in clause"
                " {ref[lim.belongings]}.",
                "Theft is covered only if the vehicle was locked and the belongings were out of"
                " sight.",
            ),
            fill=6,
            lay="the belongings cover",
        ),
        ClauseDef(
            "cov.courtesy",
            "Courtesy car",
            "a courtesy car",
            (
                "If the vehicle is being repaired by an approved repairer after a claim, we will"
                " provide a small hatchback courtesy car for the duration of the repairs, subject"
                " to availability.",
                {
                    "2024": "A courtesy car is not provided if the vehicle is a total loss or has"
                    " been stolen and not recovered.",
                    "2025": "If the vehicle is a total loss or has been stolen and not recovered,"
                    " we will provide a courtesy car for up to 14 days.",
                },
                "The courtesy car is covered on the same terms as your policy, and you must pay"
                " for its fuel, tolls and any parking or congestion charges.",
            ),
            fill=6,
            lay="the courtesy car section",
            asks=(
                Ask(
                    "limits",
                    (
                        "Do I get a <courtesy car|replacement car> if my car is <written off|a"
                        " write-off>, and for how long?",
                        "How long can I keep the <courtesy car|hire car> <while mine's being"
                        " fixed|during repairs>?",
                    ),
                    supports=("def.total_loss",),
                ),
            ),
        ),
        ClauseDef(
            "cov.audio",
            "Audio, navigation and entertainment equipment",
            "audio and navigation equipment",
            (
                "We will pay for loss of or damage to audio, navigation, telephone and"
                " entertainment equipment permanently fitted to the vehicle.",
                "Equipment fitted by the manufacturer as original equipment is covered in full;"
                " other equipment is covered up to the limit in clause {ref[lim.audio]}.",
            ),
            fill=6,
        ),
        ClauseDef(
            "cov.keys",
            "Replacement locks and keys",
            "locks and keys",
            (
                "If the keys to the vehicle are lost or stolen, we will pay to replace the keys,"
                " the door and boot locks, the ignition lock and the steering lock, and to"
                " reprogramme the immobiliser and keyless entry system.",
                "You must report stolen keys to the police; we will only pay if the identity or"
                " garaging address of the vehicle is known to a person who may have the keys.",
            ),
            fill=6,
            lay="the lost keys cover",
        ),
        ClauseDef(
            "cov.charging",
            "Electric vehicle charging equipment and battery",
            "the charging equipment and battery",
            (
                "We will pay for loss of or damage to charging equipment, at your home or in the"
                " vehicle, caused by an accident, fire, theft or malicious damage.",
                "We will also pay for loss of or damage to the vehicle's battery, whether you own"
                " it or lease it.",
                "Damage caused by charging the vehicle with equipment that does not meet the"
                " manufacturer's specification is not covered.",
            ),
            fill=6,
            lay="the EV charging cover",
        ),
        ClauseDef(
            "cov.child_seats",
            "Child car seats",
            "child car seats",
            (
                "If the vehicle is involved in an accident, we will pay to replace any child car"
                " seat fitted to it, even if there is no visible damage, up to the limit in"
                " clause {ref[lim.child_seats]}.",
                "No excess applies, and a claim for child car seats alone does not affect your no"
                " claim discount.",
            ),
            fill=5,
        ),
        ClauseDef(
            "cov.liability",
            "Liability to other people",
            "your liability to other people",
            (
                "We will cover you for your legal liability for the death of or injury to any"
                " person, and for damage to their property, arising from an accident involving"
                " the vehicle or a trailer attached to it.",
                "We will also cover any named driver, and any passenger for their liability"
                " arising from getting into or out of the vehicle.",
                "The limits in clause {ref[lim.liability]} apply.",
            ),
            fill=7,
            lay="the third party section",
        ),
        ClauseDef(
            "cov.other_cars",
            "Driving other cars",
            "driving other cars",
            (
                {
                    "2024": "If your certificate of motor insurance allows it, you (but not a"
                    " named driver) are covered for third party liability only while driving"
                    " another private car that does not belong to you and is not hired to you.",
                    "2025": "If your certificate of motor insurance allows it and you are aged 25"
                    " or over, you (but not a named driver) are covered for third party liability"
                    " only while driving another private car that does not belong to you and is"
                    " not hired to you.",
                },
                "The other car must have its own valid insurance, and there is no cover for"
                " damage to the car you are driving.",
                "This cover does not apply at all where endorsement END-MT-09 is shown in your"
                " schedule.",
            ),
            fill=6,
            lay="the driving other cars section",
            asks=(
                Ask(
                    "exclusions",
                    (
                        "Can I drive my <friend's|mate's|dad's> car on my <own|car> insurance?",
                        "If I <borrow|drive> someone else's car and <crash|damage it>, is <their"
                        " car|the damage> covered?",
                    ),
                ),
            ),
        ),
        ClauseDef(
            "cov.europe",
            "Driving in Europe",
            "driving in Europe",
            (
                {
                    "2024": "We will provide the same cover as in the United Kingdom while the"
                    " vehicle is in any country of the European Union, Andorra, Iceland,"
                    " Liechtenstein, Norway, Serbia or Switzerland, for up to 90 days in any"
                    " period of insurance.",
                    "2025": "We will provide the same cover as in the United Kingdom while the"
                    " vehicle is in any country of the European Union, Andorra, Iceland,"
                    " Liechtenstein, Norway, Serbia or Switzerland, for up to 60 days in any"
                    " period of insurance.",
                },
                "Outside these periods or countries, we will provide the minimum cover needed to"
                " meet the law of the country concerned.",
                "You must carry your certificate of motor insurance when you drive abroad.",
            ),
            fill=6,
            lay="the European cover clause",
            asks=(
                Ask(
                    "limits",
                    (
                        "How long can I <take the car|drive> <in France|in Europe> and still be"
                        " fully covered?",
                        "We're <driving to Spain|doing a road trip round Europe> for <ten|eight>"
                        " weeks, are we <fully covered|still comprehensive>?",
                    ),
                    supports=("def.territorial",),
                ),
            ),
        ),
        ClauseDef(
            "cov.personal_accident",
            "Personal accident benefit",
            "personal accident benefit",
            (
                "If you or your partner are accidentally injured while travelling in or getting"
                " into or out of the vehicle, and the injury results within 3 months in death,"
                " loss of a limb or loss of sight, we will pay the benefit in clause"
                " {ref[lim.personal_accident]}.",
                "We will not pay this benefit to anyone over 75 years old or where the driver was"
                " under the influence of alcohol or drugs.",
            ),
            fill=5,
        ),
    ),
)

LIMITS = PartDef(
    "4",
    "Limits and excesses",
    "limits",
    (
        ClauseDef(
            "lim.general",
            "How limits and excesses apply",
            "the vehicle",
            (
                "The excesses in this section are added together where more than one applies,"
                " for example the compulsory excess, the young driver excess and any voluntary"
                " excess.",
                "An excess applies to each claim under clauses {ref[cov.damage]} and"
                " {ref[cov.fire_theft]}, whoever is driving.",
                "No excess applies to claims under clause {ref[cov.liability]}.",
            ),
            fill=5,
        ),
        ClauseDef(
            "lim.vehicle",
            "The most we will pay for the vehicle",
            "the vehicle",
            (
                "The most we will pay for loss of or damage to the vehicle is its market value at"
                " the time of the loss.",
                {
                    "2024": "If the vehicle is less than 12 months old and you are its first"
                    " registered keeper, we will replace it with a new vehicle of the same make and"
                    " model if it is a total loss.",
                    "2025": "If the vehicle is less than 18 months old and you are its first"
                    " registered keeper, we will replace it with a new vehicle of the same make and"
                    " model if it is a total loss.",
                },
            ),
            fill=5,
            asks=(
                Ask(
                    "limits",
                    (
                        "My car is <brand new|only a year old> and got written off, do I get a new"
                        " one or <just its value|the market value>?",
                        "What's the most you'll pay if my <car|vehicle> is <a write-off|totalled>?",
                    ),
                    supports=("def.market_value",),
                ),
            ),
        ),
        ClauseDef(
            "lim.compulsory_excess",
            "Compulsory excess",
            "the compulsory excess",
            (
                "A compulsory excess of {v[compulsory_excess]} applies to each claim for loss of"
                " or damage to the vehicle, or the higher amount shown in your schedule.",
                "The compulsory excess does not apply to windscreen claims, which have their own"
                " excess in clause {ref[lim.windscreen]}.",
            ),
            fill=5,
            lay="the compulsory excess",
            asks=(
                Ask(
                    "limits",
                    (
                        "What's the <deductible|excess> on <my car insurance|a car claim>?",
                        "How much <is the compulsory excess|do I pay myself> if I <crash|have an"
                        " accident>?",
                    ),
                    supports=("lim.general", "def.excess"),
                ),
                Ask(
                    "limits",
                    (
                        "<I hit a wall|I reversed into a bollard> and dented the car, <how"
                        " much|what> will I pay <towards the repair|myself>?",
                    ),
                    supports=("cov.damage",),
                ),
            ),
        ),
        ClauseDef(
            "lim.voluntary_excess",
            "Voluntary excess",
            "the voluntary excess",
            (
                "If you chose a voluntary excess when you took out this policy, it is shown in"
                " your schedule and is added to the compulsory excess.",
                "You may choose a voluntary excess of £100, £250 or £500 in return for a lower"
                " premium; you can change it only at renewal.",
            ),
            fill=5,
            asks=(
                Ask(
                    "limits",
                    (
                        "Can I <raise|increase> my <voluntary excess|deductible> <to lower|to get a"
                        " cheaper> premium?",
                    ),
                    supports=("lim.compulsory_excess",),
                ),
            ),
        ),
        ClauseDef(
            "lim.young_excess",
            "Young and inexperienced driver excess",
            "the young driver excess",
            (
                "An additional excess applies when the vehicle is being driven by a young or"
                " inexperienced driver.",
                "The additional excess is {v[under21_excess]} for a driver aged under 21, and"
                " {v[young_excess]} for a driver aged 21 to 24 or a driver who has held a full"
                " licence for less than two years.",
                "This excess is added to the compulsory and any voluntary excess.",
            ),
            fill=5,
            lay="the young driver excess",
            asks=(
                Ask(
                    "limits",
                    (
                        "My <19 year old|teenage> <son|daughter> is a named driver, what's the"
                        " <excess|deductible> if they crash?",
                        "Is there an extra <excess|deductible> for new drivers?",
                    ),
                    supports=("def.young_driver", "lim.compulsory_excess"),
                ),
            ),
        ),
        ClauseDef(
            "lim.theft_excess",
            "Theft excess",
            "the theft excess",
            (
                "If the vehicle is stolen or damaged during an attempted theft, the excess is"
                " {v[theft_excess]} instead of the compulsory excess.",
                "Where endorsement END-MT-13 is shown in your schedule, this excess is reduced by"
                " half, provided the tracking device approved by us was fitted and working at the"
                " time of the theft.",
            ),
            fill=5,
            asks=(
                Ask(
                    "limits",
                    (
                        "<My car got nicked|My car was stolen> <off the drive|from outside the"
                        " house>, what's my excess?",
                        "Does a <tracker|tracking device> <reduce|lower> the <theft excess|excess"
                        " if the car is stolen>?",
                    ),
                    supports=("cov.fire_theft",),
                ),
            ),
        ),
        ClauseDef(
            "lim.windscreen",
            "Windscreen excess and limits",
            "the windscreen excess",
            (
                "The excess for repairing glass is {v[glass_repair_excess]} and the excess for"
                " replacing glass is {v[glass_replace_excess]}.",
                "If you do not use our approved glass supplier, the most we will pay is"
                " {v[glass_limit]} for any one claim.",
            ),
            fill=5,
            lay="the windscreen excess",
            asks=(
                Ask(
                    "limits",
                    (
                        "<A stone chipped my windscreen|I've got a crack in the windscreen>, how"
                        " much do I pay <to get it fixed|towards it>?",
                        "Can I use my own <glass company|windscreen firm> and <what's the"
                        " limit|how much will you pay>?",
                    ),
                    supports=("cov.windscreen",),
                ),
            ),
        ),
        ClauseDef(
            "lim.repairer_excess",
            "Excess if you do not use an approved repairer",
            "the non-approved repairer excess",
            (
                "If you choose to have the vehicle repaired by a repairer who is not an approved"
                " repairer, an additional excess of £250 applies.",
                "We will not pay more than the amount an approved repairer would have charged.",
            ),
            fill=5,
            asks=(
                Ask(
                    "limits",
                    (
                        "What <extra|additional> <do I pay|excess is there> if I use my own"
                        " <garage|mechanic> for the repairs?",
                    ),
                    supports=("clm.repairs", "def.repairer"),
                ),
            ),
        ),
        ClauseDef(
            "lim.belongings",
            "Personal belongings",
            "personal belongings",
            (
                "The most we will pay for personal belongings under clause {ref[cov.belongings]}"
                " is {v[belongings_limit]} for any one claim.",
            ),
            fill=5,
            asks=(
                Ask(
                    "limits",
                    (
                        "<Someone broke into my car|Thieves broke into my car> and took my <bag|gym"
                        " bag>, how much can I claim?",
                        "What's the limit for <stuff|things> <stolen from|taken out of> the car?",
                    ),
                    supports=("cov.belongings", "def.belongings"),
                ),
            ),
        ),
        ClauseDef(
            "lim.audio",
            "Audio and navigation equipment",
            "audio and navigation equipment",
            (
                "The most we will pay for audio, navigation and entertainment equipment that was"
                " not fitted by the manufacturer is {v[audio_limit]} for any one claim.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "<My aftermarket stereo|The sat nav I had fitted> was stolen, how much"
                        " will you pay?",
                    ),
                    supports=("cov.audio",),
                ),
            ),
        ),
        ClauseDef(
            "lim.keys",
            "Locks and keys",
            "locks and keys",
            (
                "The most we will pay under clause {ref[cov.keys]} is {v[keys_limit]} for any one"
                " claim.",
                "An excess of £100 applies, and a claim for keys alone does not affect your no"
                " claim discount.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "I lost my car <keys|key fob> <on a night out|at the beach>, how much"
                        " will you pay to replace them?",
                    ),
                    supports=("cov.keys", "def.keys"),
                ),
            ),
        ),
        ClauseDef(
            "lim.charging",
            "Charging equipment",
            "charging equipment",
            (
                "The most we will pay for charging equipment is {v[charging_limit]} for any one"
                " claim.",
                "There is no limit for the vehicle's battery other than the market value of the"
                " vehicle.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "My <charging cable|EV cable> was stolen <at a charge point|from the"
                        " driveway>, how much do you pay?",
                        "Is the <car battery|EV battery> covered if it's leased, and is there a"
                        " limit?",
                    ),
                    supports=("cov.charging",),
                ),
            ),
        ),
        ClauseDef(
            "lim.liability",
            "Liability limits",
            "liability",
            (
                "There is no limit on the amount we will pay for death or bodily injury.",
                "The most we will pay for damage to other people's property is £20,000,000 for"
                " any one event, plus legal costs we have agreed, reduced to £5,000,000 when the"
                " vehicle is towing a trailer.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "If I <crash into|damage> someone's <expensive car|house>, what's the most"
                        " you'll pay them?",
                    ),
                    supports=("cov.liability",),
                ),
            ),
        ),
        ClauseDef(
            "lim.personal_accident",
            "Personal accident benefit",
            "personal accident benefit",
            (
                "The personal accident benefit is {v[pa_benefit]} for each person, and we will not"
                " pay more than this for any one person in any period of insurance.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "How much is the <personal accident|injury> <benefit|payout> if I'm"
                        " seriously hurt in a <crash|car accident>?",
                    ),
                    supports=("cov.personal_accident",),
                ),
            ),
        ),
        ClauseDef(
            "lim.child_seats",
            "Child car seats",
            "child car seats",
            (
                "The most we will pay for child car seats is {v[child_seat_limit]} for any one"
                " claim.",
            ),
            fill=4,
            asks=(
                Ask(
                    "limits",
                    (
                        "Will you <replace|pay for> the <baby seat|kids' car seats> after a"
                        " <bump|crash>, and how much?",
                    ),
                    supports=("cov.child_seats",),
                ),
            ),
        ),
    ),
)

EXCLUSIONS = PartDef(
    "5",
    "What is not covered",
    "exclusions",
    (
        *shared.EXCLUSIONS_FIRST,
        ClauseDef(
            "exc.alcohol",
            "Alcohol and drugs",
            "driving under the influence",
            (
                "We will not pay for loss of or damage to the vehicle while it is being driven by"
                " anyone who is over the legal limit for alcohol, or unfit to drive through drugs,"
                " or who fails to provide a sample when required to by the police.",
                "We will meet our legal obligations to other people, but we may recover what we"
                " pay from the driver.",
            ),
            fill=4,
            code_no=5,
            asks=(
                Ask(
                    "exclusions",
                    (
                        "If I <crash after a couple of drinks|have an accident after a few pints>,"
                        " will you pay <for my car|anything>?",
                        "What happens <to my claim|with the insurance> if the driver"
                        " <refused|didn't"
                        " give> a breath test?",
                    ),
                ),
            ),
        ),
        ClauseDef(
            "exc.drivers",
            "Drivers and licences",
            "unauthorised drivers",
            (
                "We will not pay any claim while the vehicle is being driven by anyone not"
                " allowed to drive it by your certificate of motor insurance, or by anyone who"
                " does not hold a valid licence to drive it.",
                "This exclusion does not apply while the vehicle is in the custody of a garage for"
                " servicing or repair, or with a member of the hotel or restaurant staff for"
                " parking.",
            ),
            fill=4,
            code_no=6,
            asks=(
                Ask(
                    "exclusions",
                    (
                        "My <mate|friend> <drove my car|borrowed my car> and crashed it, but he's"
                        " not on my policy. Am I covered?",
                        "Is the car covered when <it's with the garage|the mechanic is driving it>"
                        " for a service?",
                    ),
                    supports=("def.named_driver",),
                ),
            ),
        ),
        ClauseDef(
            "exc.use",
            "Uses not covered",
            "uses not covered",
            (
                "We will not pay any claim while the vehicle is being used for a purpose not"
                " allowed by your certificate of motor insurance.",
                {
                    "2024": "We will not pay any claim while the vehicle is being used for racing,"
                    " competitions, rallies, speed testing or on a race track.",
                    "2025": "We will not pay any claim while the vehicle is being used for racing,"
                    " competitions, rallies, speed testing, or on a race track or at any track"
                    " day, even where the event is not timed.",
                },
                "Where endorsement END-MT-05 is shown in your schedule, use in connection with your"
                " business is allowed, but not the carriage of goods or passengers for payment.",
            ),
            fill=4,
            code_no=8,
            lay="the uses exclusion",
            asks=(
                Ask(
                    "exclusions",
                    (
                        "Am I covered <on a track day|at a trackday> at <Silverstone|Brands"
                        " Hatch>?",
                        "Is the car covered if I <use it for work|drive for my job>?",
                    ),
                    supports=("def.use",),
                ),
            ),
        ),
        ClauseDef(
            "exc.keys",
            "Keys left in or on the vehicle",
            "keys left in the vehicle",
            (
                "We will not pay for theft or attempted theft of the vehicle, or for loss of or"
                " damage to it, if the keys were left in or on the vehicle while it was"
                " unattended, or the vehicle was left unlocked or with a window or roof open.",
                {
                    "2025": "We will not pay for theft of the vehicle using a keyless entry"
                    " signal relay if the keyless entry device was kept within five metres of the"
                    " vehicle and was not stored in a signal-blocking pouch or box.",
                },
            ),
            fill=4,
            code_no=9,
            lay="the keys exclusion",
            asks=(
                Ask(
                    "exclusions",
                    (
                        "My car was stolen <while it was warming up|with the engine running> on"
                        " the drive, <will you pay|am I covered>?",
                        "<Thieves|Someone> <stole|took> my <keyless|push-start> car <off the"
                        " drive|from outside the house> using a <relay|signal booster>, is that"
                        " covered?",
                    ),
                    supports=("def.keys",),
                ),
            ),
        ),
        ClauseDef(
            "exc.wear",
            "Wear, tear and breakdown",
            "wear and tear",
            (
                "We will not pay for wear and tear, or for mechanical, electrical, electronic or"
                " computer failure, breakdown or breakage.",
                "We will not pay for damage to the engine caused by a lack of oil, coolant or"
                " maintenance.",
            ),
            fill=4,
            code_no=10,
            asks=(
                Ask(
                    "exclusions",
                    (
                        "<My gearbox|The clutch> <packed up|failed>, can I claim on my <car"
                        " insurance|policy>?",
                        "Does the insurance cover the car <breaking down|just breaking down>?",
                    ),
                ),
            ),
        ),
        ClauseDef(
            "exc.tyres",
            "Tyres",
            "damage to tyres",
            (
                "We will not pay for damage to tyres caused by braking, punctures, cuts or bursts.",
                "We will pay for damage to tyres caused by an accident that also damages other"
                " parts of the vehicle.",
            ),
            fill=4,
            code_no=11,
            asks=(
                Ask(
                    "exclusions",
                    (
                        "I got a <puncture|flat tyre> <from a nail|on the motorway>, is a new tyre"
                        " covered?",
                        "<Will|Do> you pay for tyres damaged by a pothole?",
                    ),
                ),
            ),
        ),
        ClauseDef(
            "exc.fuel",
            "Wrong fuel",
            "wrong fuel",
            (
                {
                    "2024": "We will not pay for any loss or damage caused by putting the wrong"
                    " fuel in the vehicle, including the cost of draining the fuel system.",
                    "2025": "We will not pay for damage to the engine caused by putting the wrong"
                    " fuel in the vehicle, but we will pay up to £500 for draining and flushing"
                    " the fuel system and recovering the vehicle.",
                },
            ),
            fill=4,
            code_no=12,
            lay="the wrong fuel exclusion",
            asks=(
                Ask(
                    "exclusions",
                    (
                        "I put <petrol in my diesel|diesel in my petrol car> by mistake, <will you"
                        " pay|am I covered>?",
                        "Is <misfuelling|filling up with the wrong fuel> covered?",
                    ),
                ),
            ),
        ),
        ClauseDef(
            "exc.value",
            "Loss of value",
            "loss of value",
            (
                "We will not pay for any reduction in the value of the vehicle after it has been"
                " repaired, or for loss of use of the vehicle, or for travel costs while it is off"
                " the road.",
            ),
            fill=4,
            code_no=14,
            asks=(
                Ask(
                    "exclusions",
                    (
                        "My car is worth less <after the repair|now it's been in an accident>, can"
                        " I claim for the <drop|loss> in value?",
                        "Do you pay my <train fares|taxi costs> while my car is <off the"
                        " road|being fixed>?",
                    ),
                    supports=("cov.courtesy",),
                ),
            ),
        ),
        ClauseDef(
            "exc.confiscation",
            "Confiscation",
            "confiscation",
            (
                "We will not pay for loss of or damage to the vehicle while it is confiscated,"
                " seized or destroyed by or under the order of any government, public or local"
                " authority, including the police.",
            ),
            fill=4,
            code_no=15,
            asks=(
                Ask(
                    "exclusions",
                    (
                        "The police <seized|impounded> my car, will you pay <to get it back|the"
                        " release fee>?",
                    ),
                ),
            ),
        ),
        shared.EXCLUSION_CYBER,
        ClauseDef(
            "exc.delivery",
            "Delivery and ride-hailing",
            "delivery and ride-hailing",
            (
                "We will not pay any claim while the vehicle is being used to deliver food,"
                " parcels or other goods for payment, or to carry passengers for hire through an"
                " app or otherwise.",
                "This exclusion applies even if your certificate allows business use.",
            ),
            fill=4,
            code_no=19,
            versions=("2025",),
            asks=(
                Ask(
                    "exclusions",
                    (
                        "Am I covered <doing food deliveries|delivering takeaways> in my own car?",
                        "Can I use my car for <Uber|a ride-hailing app> on this policy?",
                    ),
                    supports=("def.use",),
                ),
            ),
        ),
    ),
)

CLAIMS = PartDef(
    "6",
    "Making a claim",
    "claims",
    (
        ClauseDef(
            "clm.notify",
            "Reporting an accident or loss",
            "your claim",
            (
                {
                    "2024": "You must tell us about any accident, loss or damage as soon as"
                    " possible, and in any case within seven days, even if you do not intend to"
                    " claim.",
                    "2025": "You must tell us about any accident, loss or damage as soon as"
                    " possible, and in any case within 48 hours, even if you do not intend to"
                    " claim.",
                },
                "Telling us about an incident is not the same as making a claim, but it may"
                " affect your premium at renewal.",
            ),
            fill=5,
            lay="the reporting section",
            asks=(
                Ask(
                    "procedures",
                    (
                        "How <long|many days> do I have to <report|tell you about> a <crash|bump>?",
                        "Do I <need|have> to tell you about a <minor|small> accident even if I'm"
                        " not claiming?",
                    ),
                ),
            ),
        ),
        ClauseDef(
            "clm.scene",
            "At the scene of an accident",
            "an accident",
            (
                "If you are involved in an accident, you must stop and give your name, address"
                " and vehicle registration to anyone with reasonable grounds to ask for them.",
                "If anyone is injured, or you cannot exchange details, you must report the"
                " accident to the police as soon as possible and in any case within 24 hours.",
                "Take photographs of the scene and the vehicles, and note the names and addresses"
                " of any witnesses.",
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    (
                        "What should I do <at the scene|straight after> <of an accident|a crash>?",
                        "The other driver <drove off|wouldn't give me details>, what do I do?",
                        "When do I need to <call|tell> the police after a <crash|collision>?",
                    ),
                    supports=("clm.notify",),
                ),
            ),
        ),
        ClauseDef(
            "clm.liability",
            "Do not admit liability",
            "admitting liability",
            (
                "You must not admit responsibility for an accident, or offer or agree to pay"
                " anything, without our written agreement.",
                "We will deal with the other party and their insurer on your behalf.",
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    (
                        "<Should I|Can I> <say sorry|admit it was my fault> to the other driver?",
                        "The other driver wants me to pay <cash|them directly> <instead of"
                        " claiming|to keep it off insurance>, can I?",
                    ),
                ),
            ),
        ),
        ClauseDef(
            "clm.theft",
            "Theft or vandalism",
            "theft or vandalism",
            (
                "If the vehicle or anything in it is stolen or vandalised, you must report it to"
                " the police within 24 hours and give us the crime reference number.",
                "If the vehicle is recovered after you have told us about the theft, you must"
                " tell us immediately.",
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    (
                        "My car's been stolen, <what do I do|what are the steps>?",
                        "Someone <keyed|scratched> my car, <do I need to|should I> report it to"
                        " the police?",
                    ),
                ),
            ),
        ),
        ClauseDef(
            "clm.repairs",
            "Repairs",
            "repairs",
            (
                "If you use an approved repairer, we will arrange the repair, collect and deliver"
                " the vehicle, and pay the repairer directly, less your excess.",
                "If you use another repairer, you must send us an estimate before any work"
                " starts, and the excess in clause {ref[lim.repairer_excess]} applies.",
            ),
            fill=5,
            lay="the repairs section",
            asks=(
                Ask(
                    "procedures",
                    (
                        "Can I <choose my own garage|use my local garage> for the repair?",
                        "Do I have to <get quotes|send you an estimate> before the garage starts?",
                    ),
                    supports=("lim.repairer_excess",),
                ),
            ),
        ),
        ClauseDef(
            "clm.total_loss",
            "Total loss settlement",
            "a total loss",
            (
                "If the vehicle is a total loss, we will pay you its market value, less your"
                " excess and any unpaid premium.",
                "If the vehicle is on finance or lease, we will pay the finance company first,"
                " and pay you any balance.",
                "Once we have paid, the vehicle becomes our property, and your policy for it ends.",
            ),
            fill=5,
            lay="the write-off section",
            asks=(
                Ask(
                    "procedures",
                    (
                        "My car is on finance and got written off, who gets the <money|payout>?",
                        "Do I keep <my car|the wreck> after you've paid out for a <write-off|total"
                        " loss>?",
                    ),
                    supports=("def.total_loss",),
                ),
            ),
        ),
        ClauseDef(
            "clm.windscreen",
            "Windscreen claims",
            "a windscreen claim",
            (
                "For glass damage, call our windscreen helpline, shown on your schedule; our"
                " approved glass supplier will repair or replace the glass at your home or"
                " workplace.",
                "You do not need to call the main claims line for windscreen claims.",
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    (
                        "Who do I <call|ring> about a <cracked windscreen|chipped windscreen>?",
                        "Can someone <fix|replace> my windscreen <at work|on my drive>?",
                    ),
                    supports=("cov.windscreen",),
                ),
            ),
        ),
        ClauseDef(
            "clm.uninsured",
            "Uninsured driver promise",
            "the uninsured driver promise",
            (
                "If you are involved in an accident that was not your fault and the other driver"
                " is not insured, you will not lose your no claim discount and we will refund your"
                " excess.",
                "You must give us the make, model and registration of the other vehicle and, if"
                " possible, the other driver's name and address.",
                "Where endorsement END-MT-02 is shown in your schedule, your no claim discount is"
                " protected, and up to two claims in any five years will not reduce it.",
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    (
                        "<The driver who hit me|The person who crashed into me> <has no"
                        " insurance|wasn't insured>, what happens <to my no claims|to my excess>?",
                    ),
                ),
            ),
        ),
        ClauseDef(
            "clm.helpline",
            "Claims helpline and recovery",
            "the claims helpline",
            (
                "Our claims helpline is open 24 hours a day, every day of the year.",
                "If the vehicle cannot be driven after an accident, call the helpline and we will"
                " arrange for it to be recovered to an approved repairer.",
            ),
            fill=5,
            asks=(
                Ask(
                    "procedures",
                    (
                        "Is the claims <line|helpline> open <at night|on Sundays>?",
                        "<My car can't be driven|The car's undriveable> after <the crash|an"
                        " accident>, who <moves|recovers> it?",
                    ),
                ),
            ),
        ),
    ),
)

CONDITIONS = PartDef(
    "7",
    "General conditions",
    "conditions",
    (
        *shared.CONDITIONS,
        ClauseDef(
            "cond.roadworthy",
            "Keeping your vehicle roadworthy",
            "the condition of the vehicle",
            (
                "You must keep the vehicle in a roadworthy condition and have a valid MOT"
                " certificate if one is needed by law.",
                "Tyres must be above the legal minimum tread depth at all times.",
                "You must let us examine the vehicle at any reasonable time.",
            ),
            fill=3,
            asks=(
                Ask(
                    "procedures",
                    (
                        "<Am I covered|Will you pay out> if my MOT <ran out|expired> last week?",
                        "Do <bald tyres|worn tyres> affect my <claim|cover>?",
                    ),
                ),
            ),
        ),
    ),
)

ABOUT = PartDef("1", "About this policy", "other", shared.ABOUT)

MOTOR = ProductDef(
    document="motor",
    code="MT",
    title="Private Car Insurance Policy Wording",
    prod="motor insurance policy",
    asset="your vehicle",
    forms={"2024": "MT-PW-2024/01", "2025": "MT-PW-2025/02"},
    starts={"2024": "1 February 2024", "2025": "1 March 2025"},
    lay_names=("my car insurance", "my motor policy", "my car policy", "the car insurance"),
    values={
        "prev_form": ("MT-PW-2023/01", "MT-PW-2024/01"),
        "asset_lay": "my car",
        "war_note": "We will still provide the cover that the Road Traffic Acts require.",
        "period_note": "A period of insurance is normally twelve months; cover ends at"
        " midnight on the last day shown.",
        "care_example": "This includes locking the vehicle and removing the keys whenever it is"
        " left unattended.",
        "change_examples": "a change of vehicle, address or job, a new driver, modifications to"
        " the vehicle, or any motoring conviction or fixed penalty, such as a speeding"
        " ticket",
        "change_lay": "<I get a speeding ticket|I get points on my licence>",
        "compulsory_excess": ("£250", "£300"),
        "under21_excess": ("£400", "£500"),
        "young_excess": ("£200", "£250"),
        "theft_excess": ("£250", "£350"),
        "glass_repair_excess": ("£10", "£25"),
        "glass_replace_excess": ("£95", "£125"),
        "glass_limit": ("£150", "£200"),
        "belongings_limit": ("£250", "£300"),
        "audio_limit": ("£500", "£750"),
        "keys_limit": ("£500", "£750"),
        "charging_limit": ("£1,000", "£1,500"),
        "pa_benefit": ("£5,000", "£7,500"),
        "child_seat_limit": ("£300", "£400"),
    },
    endorsements=(
        Endorsement("END-MT-02", "Protected no claim discount", "clm.uninsured"),
        Endorsement("END-MT-05", "Business use", "exc.use"),
        Endorsement("END-MT-09", "Driving other cars withdrawn", "cov.other_cars"),
        Endorsement("END-MT-13", "Tracking device", "lim.theft_excess"),
    ),
    parts=(ABOUT, DEFINITIONS, COVER, LIMITS, EXCLUSIONS, CLAIMS, CONDITIONS),
)
